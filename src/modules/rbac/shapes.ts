/**
 * Access-control shapes shared by the identity endpoints (#14-#18) and the RBAC detail endpoints
 * (#19-#22): the Graph, the SubjectRef and free-form Kubernetes objects.
 */
import { Type } from 'typebox';
import { NullableTimestamp } from '../../http/schemas.js';

/** A JSON object whose content the description leaves open (raw Kubernetes objects, properties). */
export const FreeObject = Type.Object({}, { additionalProperties: true });

export const GraphSchema = Type.Object(
  {
    nodes: Type.Array(
      Type.Object({
        id: Type.String(),
        type: Type.String({
          description:
            'k8s_service_account, k8s_user, k8s_group (id = identity id), role_binding, cluster_role_binding, role, cluster_role (id = stable object id)',
        }),
        properties: FreeObject,
      }),
    ),
    edges: Type.Array(
      Type.Object({
        id: Type.String(),
        from_id: Type.String(),
        to_id: Type.String(),
        type: Type.String({ description: 'subject_of, member_of, role_ref or aggregates' }),
      }),
    ),
  },
  { description: 'identity -> binding -> role (-> aggregated component) nodes and edges' },
);

export const SubjectRefSchema = Type.Object({
  id: Type.String({ description: 'stable id: identity id for subjects, object id for roles' }),
  uid: Type.String({ description: "Kubernetes uid ('' when unknown or missing)" }),
  kind: Type.String(),
  name: Type.String(),
  namespace: Type.String({ description: "where it applies; '' cluster-wide" }),
  account_id: Type.String(),
  cluster_id: Type.String(),
  created_at: NullableTimestamp,
  updated_at: NullableTimestamp,
});
