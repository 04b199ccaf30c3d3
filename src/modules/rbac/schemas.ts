/**
 * Schemas of the access-control detail endpoints (#19-#22 and cluster roles by uid), after the
 * description's "Access-control detail records". Nested records are shallow where the shapes
 * would otherwise recurse (a binding's subjects list their bindings as summaries, not in full).
 */
import { Type } from 'typebox';
import { Id, NullableTimestamp } from '../../http/schemas.js';
import { GraphSchema, SubjectRefSchema } from './shapes.js';

export const RuleRecordSchema = Type.Object({
  id: Type.String(),
  category: Type.String({ description: 'rbac' }),
  type: Type.String({ description: 'resource_rule or non_resource_rule' }),
  title: Type.String(),
  description: Type.String(),
  content: Type.String({ description: 'the Kubernetes PolicyRule as JSON' }),
  severity: Type.String({ description: 'the worst identity risk rule this rule matches at this scope' }),
  status: Type.String({ description: 'active' }),
  version: Type.String({ description: "the role's resourceVersion" }),
  created_at: NullableTimestamp,
  updated_at: NullableTimestamp,
  deleted_at: NullableTimestamp,
  cluster_role_uid: Type.String(),
  role_uid: Type.String(),
  namespace: Type.String({ description: "where the rule applies; '' cluster-wide" }),
  tags: Type.Array(Type.Object({ key: Type.String(), source: Type.String(), value: Type.String() })),
  api_groups: Type.Array(Type.String()),
  resource_names: Type.Array(Type.String()),
  resources: Type.Array(Type.String()),
  verbs: Type.Array(Type.String()),
});

const objectFields = {
  account_id: Type.String(),
  cluster_id: Type.String(),
  uid: Type.String(),
  name: Type.String(),
  namespace: Type.String(),
  resource_version: Type.String(),
  created_at: NullableTimestamp,
  updated_at: NullableTimestamp,
};

export const BindingSummarySchema = Type.Object({
  ...objectFields,
  role_ref_api_group: Type.String(),
  role_ref_kind: Type.String(),
  role_ref_name: Type.String(),
});

/** A role inside a binding: its fields and rules (where the binding applies them). */
const NestedRoleSchema = Type.Object({ ...objectFields, rules: Type.Array(RuleRecordSchema) });

export const RoleRecordSchema = Type.Object({
  ...objectFields,
  assigned_subjects: Type.Array(SubjectRefSchema),
  graph: GraphSchema,
  role_bindings: Type.Array(BindingSummarySchema),
  rules: Type.Array(RuleRecordSchema),
});

const accessFields = {
  assigned_roles: Type.Array(SubjectRefSchema),
  cluster_role_bindings: Type.Array(BindingSummarySchema),
  graph: GraphSchema,
  permissions: Type.Array(RuleRecordSchema),
  role_bindings: Type.Array(BindingSummarySchema),
};

/** A group or a user (#20, #21), with what reaches it (directly or through its groups). */
export const SubjectRecordSchema = Type.Object({
  id: Type.String({ description: 'the identity id' }),
  account_id: Type.String(),
  cluster_id: Type.String(),
  api_group: Type.String(),
  name: Type.String(),
  namespace: Type.String(),
  created_at: NullableTimestamp,
  updated_at: NullableTimestamp,
  ...accessFields,
});

export const ServiceAccountRecordSchema = Type.Object({
  id: Type.String({ description: 'the identity id' }),
  account_id: Type.String(),
  cluster_id: Type.String(),
  uid: Type.String({ description: "'' when the service account object was not pushed" }),
  name: Type.String(),
  namespace: Type.String(),
  resource_version: Type.String(),
  created_at: NullableTimestamp,
  updated_at: NullableTimestamp,
  ...accessFields,
});

export const ClusterRoleBindingDetailSchema = Type.Object({
  ...BindingSummarySchema.properties,
  cluster_role: Type.Union([NestedRoleSchema, Type.Null()], { description: 'null when the role is missing' }),
  role: Type.Union([NestedRoleSchema, Type.Null()], { description: 'a RoleBinding to a Role only' }),
  graph: GraphSchema,
  groups: Type.Array(SubjectRecordSchema),
  users: Type.Array(SubjectRecordSchema),
  service_accounts: Type.Array(ServiceAccountRecordSchema),
});

export const RbacIdParams = Type.Object({ account_id: Id, id: Id });
export const RbacUidParams = Type.Object({ account_id: Id, uid: Id });
export const RbacObjectQuery = Type.Object({
  cluster_id: Type.Optional(
    Type.String({ description: 'the cluster, should two clusters of the account hold the uid' }),
  ),
});
