/**
 * From bindings to grants: what each RoleBinding and ClusterRoleBinding gives its subjects, with
 * the namespace scope kept.
 *
 * - A ClusterRoleBinding grants its ClusterRole's rules cluster-wide (scope '').
 * - A RoleBinding grants its Role's or ClusterRole's rules only inside the binding's namespace:
 *   binding the ClusterRole `admin` in `shop` makes one an admin of `shop`, nothing more.
 * - A binding to a role that does not exist grants nothing (Kubernetes ignores it) but is kept,
 *   with a warning, because the grant appears as soon as someone creates the role.
 */
import { aggregateClusterRoles, type EffectiveRule, mergeRules } from './aggregation.js';
import { objectKey, rbacObjectId } from './ids.js';
import { canonicalJson, compareStrings, sortedUnique } from './order.js';
import type { BindingObject, Inventory, KubeObject, ObjectHandle, Permission } from './types.js';

/** What one binding gives each of its subjects. */
export interface Grant {
  binding: ObjectHandle;
  subjects: BindingObject['subjects'];
  role: ObjectHandle;
  /** '' cluster-wide (ClusterRoleBinding), else the RoleBinding's namespace. */
  scope: string;
  rules: EffectiveRule[];
  /** ClusterRoles aggregated into the bound role (transitively). */
  components: ObjectHandle[];
}

/** One handle per object key, so graph nodes and raw objects are shared between identities. */
export function createHandles(clusterId: string) {
  const cache = new Map<string, ObjectHandle>();
  return (kind: string, namespace: string, name: string, object: KubeObject | null): ObjectHandle => {
    const key = objectKey(kind, namespace, name);
    let handle = cache.get(key);
    if (handle === undefined) {
      handle = {
        key,
        id: rbacObjectId(clusterId, kind, namespace, name),
        kind,
        namespace,
        name,
        uid: object?.meta.uid ?? '',
        creationTimestamp: object?.meta.creationTimestamp ?? null,
        raw: object?.raw ?? null,
      };
      cache.set(key, handle);
    }
    return handle;
  };
}

export type Handles = ReturnType<typeof createHandles>;

/** Every grant of the cluster, in the inventory's (sorted) binding order. */
export function buildGrants(inventory: Inventory, handles: Handles, warnings: string[]): Grant[] {
  const handleOf = (object: KubeObject) =>
    handles(object.kind, object.meta.namespace, object.meta.name, object);
  const aggregation = aggregateClusterRoles(inventory.clusterRoles, handleOf);
  const clusterRoles = new Map(inventory.clusterRoles.map((role) => [role.meta.name, role]));
  const roles = new Map(inventory.roles.map((role) => [`${role.meta.namespace}/${role.meta.name}`, role]));

  const grants: Grant[] = [];
  const bindings = [...inventory.clusterRoleBindings, ...inventory.roleBindings];
  for (const binding of bindings) {
    const scope = binding.kind === 'RoleBinding' ? binding.meta.namespace : '';
    const { kind, name } = binding.roleRef;
    const where = `${binding.kind} ${objectKey(binding.kind, binding.meta.namespace, binding.meta.name)}`;
    let role: ObjectHandle;
    let rules: EffectiveRule[] = [];
    let components: ObjectHandle[] = [];
    if (kind === 'ClusterRole') {
      const found = clusterRoles.get(name);
      role = handles('ClusterRole', '', name, found ?? null);
      if (found !== undefined) {
        rules = aggregation.rules.get(name) ?? [];
        components = (aggregation.components.get(name) ?? []).map(handleOf);
      }
    } else if (kind === 'Role' && binding.kind === 'RoleBinding') {
      const found = roles.get(`${scope}/${name}`);
      role = handles('Role', scope, name, found ?? null);
      if (found !== undefined) rules = mergeRules(found.rules.map((rule) => ({ rule, source: role })));
    } else {
      warnings.push(`${where}: roleRef kind "${kind}" is not valid here; the binding is ignored`);
      continue;
    }
    if (role.raw === null)
      warnings.push(`${where}: refers to missing ${kind} "${name}"; it grants nothing yet`);
    grants.push({ binding: handleOf(binding), subjects: binding.subjects, role, scope, rules, components });
  }
  return grants;
}

/** Permission entries of one grant, keyed canonically; computed once per grant. */
const entriesOfGrant = new WeakMap<Grant, [string, Permission][]>();

function permissionEntries(grant: Grant): [string, Permission][] {
  let entries = entriesOfGrant.get(grant);
  if (entries === undefined) {
    entries = [];
    for (const { rule } of grant.rules) {
      if (rule.resources.length === 0) continue;
      const permission: Permission = {
        api_groups: sortedUnique(rule.apiGroups),
        namespace: grant.scope,
        resource_names: sortedUnique(rule.resourceNames),
        resources: sortedUnique(rule.resources),
        verbs: sortedUnique(rule.verbs),
      };
      entries.push([canonicalJson(permission), permission]);
    }
    entriesOfGrant.set(grant, entries);
  }
  return entries;
}

/**
 * The union of the rules of the grants as `rbac_objects.permissions`, one entry per distinct
 * (namespace, rule), sorted by namespace then rule. Non-resource rules (`/healthz`, `/metrics`) are
 * left out: the permission shape has no field for URLs; they stay visible in raw_rbac_objects.
 * Entries are shared between identities: treat them as read-only.
 */
export function permissionsOf(grants: Iterable<Grant>): Permission[] {
  const unique = new Map<string, Permission>();
  for (const grant of grants)
    for (const [key, permission] of permissionEntries(grant)) unique.set(key, permission);
  return [...unique.entries()]
    .sort(([ka, a], [kb, b]) => compareStrings(a.namespace, b.namespace) || compareStrings(ka, kb))
    .map(([, permission]) => permission);
}
