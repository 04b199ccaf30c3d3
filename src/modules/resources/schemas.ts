import { Type } from 'typebox';
import { Id, NullableTimestamp, PageList, pageQuery, Timestamp } from '../../http/schemas.js';

export const RESOURCE_SORT_FIELDS = [
  'name',
  'namespace',
  'kind',
  'ingested_at',
  'resource_created_at',
] as const;

export const ResourceRecordSchema = Type.Object({
  id: Type.String({ description: '<uid>_<resource_version>' }),
  account_id: Type.String(),
  cluster_id: Type.String(),
  uid: Type.String(),
  resource_version: Type.String(),
  kind: Type.String(),
  api_version: Type.String(),
  name: Type.String(),
  namespace: Type.String({ description: "'' for cluster-scoped objects" }),
  owner_uid: Type.Union([Type.String(), Type.Null()], { description: 'uid of the controller owner' }),
  entity_type: Type.String({
    description:
      'workload, rbac, service_account, network, config, storage, cluster, admission, policy or other',
  }),
  resource_created_at: NullableTimestamp,
  ingested_at: Timestamp,
  watched_at: Timestamp,
  deleted_at: NullableTimestamp,
  deletion_source: Type.Union([Type.Enum(['watch', 'snapshot']), Type.Null()]),
  version_overwritten_at: Type.Union([Timestamp, Type.Null()], {
    description: 'when a newer version of the object replaced this one',
  }),
  raw: Type.Optional(
    Type.String({ description: "the object's JSON, base64-encoded; only with with_payload=true" }),
  ),
});

const commaList = (what: string) =>
  Type.Optional(Type.String({ description: `${what}; comma-separated values match any of them` }));

export const ResourceListQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'ingested_at >= from (RFC 3339 or now-15m)' })),
  to: Type.Optional(Type.String({ description: 'ingested_at <= to (RFC 3339 or now-15m)' })),
  cluster_id: commaList('cluster id'),
  namespace: commaList('namespace'),
  owner_uid: commaList('uid of the controller owner'),
  image_digest: commaList('resources whose pod spec or container status uses this image digest (sha256:...)'),
  resource_types: commaList('kinds, e.g. Pod,Deployment (also pods, deploy ...); absent: all kinds'),
  ...pageQuery(50),
  sort: Type.Optional(
    Type.String({
      description: `field:asc|desc, field one of ${RESOURCE_SORT_FIELDS.join(', ')}; default name:asc`,
    }),
  ),
  with_payload: Type.Optional(Type.Boolean({ default: false, description: 'include raw' })),
  include_history: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'false: the current version of each live object. true: every stored version, overwritten and deleted ones included',
    }),
  ),
});

export const ResourceList = PageList(ResourceRecordSchema);

export const PayloadQuery = Type.Object({
  with_payload: Type.Optional(Type.Boolean({ default: true, description: 'include raw' })),
});

export const ResourceParams = Type.Object({ cluster_id: Id, resource_id: Id });
export const LatestResourceParams = Type.Object({ cluster_id: Id, uid: Id });
