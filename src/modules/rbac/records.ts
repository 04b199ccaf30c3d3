/**
 * Rows to access-control records, field by field. The lookups they need (the role of a binding,
 * the objects in an identity's graph) are passed in as maps keyed by stable object id, so the
 * service fetches each set of rows once.
 */
import { rbacObjectId } from '../../engines/rbac/index.js';
import { compareStrings } from '../../engines/rbac/order.js';
import { iso } from '../../http/ids.js';
import type { ObjectRef } from './graphs.js';
import type { RbacObjectRow, SubjectIdentityRow } from './repository.js';
import { type RuleRecord, ruleRecordsOf } from './rule-records.js';

export type ObjectsById = ReadonlyMap<string, RbacObjectRow>;

const RBAC_API_GROUP = 'rbac.authorization.k8s.io';

function objectFields(row: RbacObjectRow) {
  return {
    account_id: row.account_id,
    cluster_id: row.cluster_id,
    uid: row.uid,
    name: row.name,
    namespace: row.namespace,
    resource_version: row.resource_version,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function bindingSummary(row: RbacObjectRow) {
  return {
    ...objectFields(row),
    role_ref_api_group: row.role_ref_api_group ?? '',
    role_ref_kind: row.role_ref_kind ?? '',
    role_ref_name: row.role_ref_name ?? '',
  };
}

/** Where a binding applies its role: '' cluster-wide, else the RoleBinding's namespace. */
export const scopeOf = (binding: RbacObjectRow): string =>
  binding.kind === 'RoleBinding' ? binding.namespace : '';

/** The role a binding names (a Role in the binding's namespace), found or missing. */
export function roleRefOf(binding: RbacObjectRow, objects: ObjectsById): ObjectRef {
  const kind = binding.role_ref_kind ?? '';
  const namespace = kind === 'Role' ? binding.namespace : '';
  const name = binding.role_ref_name ?? '';
  return { kind, namespace, name, row: objects.get(rbacObjectId(binding.cluster_id, kind, namespace, name)) };
}

/** The ClusterRoles aggregated into a role. */
export const componentRefsOf = (role: RbacObjectRow | undefined, objects: ObjectsById): ObjectRef[] =>
  (role?.components ?? []).map((name) => ({
    kind: 'ClusterRole',
    namespace: '',
    name,
    row: objects.get(rbacObjectId(role!.cluster_id, 'ClusterRole', '', name)),
  }));

/** Stable ids of the ClusterRoles aggregated into a role. */
export const componentIdsOf = (role: RbacObjectRow | undefined): string[] =>
  (role?.components ?? []).map((name) => rbacObjectId(role!.cluster_id, 'ClusterRole', '', name));

/** Stable id of the role a binding names. */
export function roleIdsOf(binding: RbacObjectRow): string[] {
  const kind = binding.role_ref_kind ?? '';
  const namespace = kind === 'Role' ? binding.namespace : '';
  return [rbacObjectId(binding.cluster_id, kind, namespace, binding.role_ref_name ?? '')];
}

export const nestedRole = (role: RbacObjectRow, scope: string) => ({
  ...objectFields(role),
  rules: ruleRecordsOf(role, scope),
});

const BINDING_NODES = new Set(['role_binding', 'cluster_role_binding']);

/** Object ids in an identity's graph (bindings and roles), to fetch before building its record. */
export const graphObjectIds = (identity: SubjectIdentityRow): string[] =>
  identity.rbac_objects.graph.nodes.filter((node) => !node.type.startsWith('k8s_')).map((node) => node.id);

/**
 * What reaches an identity, from its stored graph: the bindings (direct or through its groups),
 * and as permissions the rules of their roles where each binding applies them.
 */
export function identityAccess(identity: SubjectIdentityRow, objects: ObjectsById) {
  const { graph } = identity.rbac_objects;
  const bindings = graph.nodes
    .filter((node) => BINDING_NODES.has(node.type))
    .map((node) => objects.get(node.id))
    .filter((row): row is RbacObjectRow => row !== undefined)
    .sort((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
  const permissions = new Map<string, RuleRecord>();
  for (const binding of bindings) {
    const role = roleRefOf(binding, objects).row;
    if (role === undefined) continue;
    for (const record of ruleRecordsOf(role, scopeOf(binding))) permissions.set(record.id, record);
  }
  return {
    assigned_roles: identity.rbac_objects.assigned_roles,
    cluster_role_bindings: bindings.filter((b) => b.kind === 'ClusterRoleBinding').map(bindingSummary),
    graph,
    permissions: [...permissions.values()],
    role_bindings: bindings.filter((b) => b.kind === 'RoleBinding').map(bindingSummary),
  };
}

function identityFields(accountId: string, identity: SubjectIdentityRow) {
  return {
    id: identity.id,
    account_id: accountId,
    cluster_id: identity.cluster_id,
    name: identity.name,
    namespace: identity.namespace,
    created_at: iso(identity.created_at),
    updated_at: iso(identity.updated_at),
  };
}

/** A group or user record (#20, #21, and a binding's groups and users). */
export const subjectRecord = (accountId: string, identity: SubjectIdentityRow, objects: ObjectsById) => ({
  ...identityFields(accountId, identity),
  api_group: RBAC_API_GROUP,
  ...identityAccess(identity, objects),
});

/** A service account record; its uid is '' when only bindings name it (no object pushed). */
export function serviceAccountRecord(
  accountId: string,
  identity: SubjectIdentityRow,
  objects: ObjectsById,
  resourceVersion: string,
) {
  const uid = identity.original_id.startsWith('system:serviceaccount:') ? '' : identity.original_id;
  return {
    ...identityFields(accountId, identity),
    uid,
    resource_version: resourceVersion,
    ...identityAccess(identity, objects),
  };
}
