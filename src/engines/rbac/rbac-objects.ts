/**
 * `rbac_objects.assigned_roles` and `raw_rbac_objects` of an identity: the roles it holds (with
 * where they apply) and the Kubernetes objects that give them, exactly as received.
 */
import type { GrantRef } from './identities.js';
import { sortBy } from './order.js';
import type { AssignedRole, ObjectHandle, RawRbacObjects } from './types.js';

/** One entry per (role, scope): `edit` bound in two namespaces is assigned twice. */
export function assignedRoles(refs: readonly GrantRef[], clusterId: string): AssignedRole[] {
  const unique = new Map<string, AssignedRole>();
  for (const { grant } of refs) {
    const role = grant.role;
    unique.set(`${role.key}|${grant.scope}`, {
      id: role.id,
      uid: role.uid,
      kind: role.kind,
      name: role.name,
      namespace: grant.scope,
      cluster_id: clusterId,
      created_at: role.creationTimestamp,
    });
  }
  return sortBy(unique.values(), (role) => [role.kind, role.namespace, role.name]);
}

/** The bindings that reach the identity, their roles and aggregated components; missing ones omitted. */
export function rawRbacObjects(refs: readonly GrantRef[]): RawRbacObjects {
  const handles = new Map<string, ObjectHandle>();
  for (const { grant } of refs) {
    for (const handle of [grant.binding, grant.role, ...grant.components]) handles.set(handle.key, handle);
  }
  const ofKind = (kind: string) =>
    sortBy(
      [...handles.values()].filter((handle) => handle.kind === kind && handle.raw !== null),
      (handle) => [handle.namespace, handle.name],
    ).map((handle) => handle.raw!);
  return {
    cluster_role_bindings: ofKind('ClusterRoleBinding'),
    cluster_roles: ofKind('ClusterRole'),
    role_bindings: ofKind('RoleBinding'),
    roles: ofKind('Role'),
  };
}
