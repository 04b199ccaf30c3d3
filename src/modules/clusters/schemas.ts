import { Type } from 'typebox';
import { Id, PageList, pageQuery, Timestamp } from '../../http/schemas.js';

export const ClusterSchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  name: Type.String(),
  created_at: Timestamp,
  last_ingested_at: Type.Union([Timestamp, Type.Null()], {
    description: 'when the last Kubernetes push was stored; null before the first',
  }),
});

export const CreateClusterBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9]([A-Za-z0-9._:/ -]*[A-Za-z0-9])?$',
      description: 'unique in the account; letters, digits and . _ : / - or spaces inside',
    }),
  },
  { additionalProperties: false },
);

export const CLUSTER_SORT_FIELDS = ['name', 'created_at', 'last_ingested_at'] as const;

export const ClusterListQuery = Type.Object({
  ...pageQuery(50),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'case-insensitive substring of the name' })),
  sort: Type.Optional(
    Type.String({
      description: `field:asc|desc, field one of ${CLUSTER_SORT_FIELDS.join(', ')}; default name:asc`,
    }),
  ),
});

export const ClusterList = PageList(ClusterSchema);
export const ClusterParams = Type.Object({ account_id: Id, cluster_id: Id });
