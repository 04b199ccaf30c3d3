import { Type } from 'typebox';
import { NullableTimestamp, PageList, pageQuery, Timestamp } from '../../http/schemas.js';

export const ClusterActionSchema = Type.Object({
  id: Type.String(),
  cluster_id: Type.String(),
  account_id: Type.String(),
  action_type: Type.Enum(['terminate_pod']),
  status: Type.String({ description: 'Pending until an agent reports on the action' }),
  target_namespace: Type.String(),
  target_pod_name: Type.String(),
  parameters: Type.Object({}, { additionalProperties: true }),
  result: Type.Union([Type.String(), Type.Null()]),
  created_by: Type.Union([Type.String(), Type.Null()], { description: 'id of the user who asked for it' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: NullableTimestamp,
});

export const CreateClusterActionBody = Type.Object(
  {
    action_type: Type.Enum(['terminate_pod']),
    target_namespace: Type.String({
      minLength: 1,
      maxLength: 63,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      description: 'namespace of the pod',
    }),
    target_pod_name: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
      description: 'a live pod of the cluster',
    }),
    parameters: Type.Optional(
      Type.Object(
        {
          grace_period_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })),
          reason: Type.Optional(Type.String({ maxLength: 500 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ClusterActionList = PageList(ClusterActionSchema);
export const ClusterActionListQuery = Type.Object(pageQuery(50));
