/**
 * Which identities a Kubernetes push can have changed, from what it changed (the ingestion's
 * `changed` list: objects whose latest version is new, deleted or restored), and the state of
 * identity_source_links before the push:
 *
 * - a binding: its subjects before and after;
 * - a Role or ClusterRole: the subjects of every binding referencing it; a ClusterRole also
 *   reaches, through aggregation, the ClusterRoles that aggregated it before (rbac_objects) or do
 *   now, and their bindings' subjects;
 * - a ServiceAccount: itself;
 * - a pod or workload: the accounts it ran as before and after, and those of every object whose
 *   owner chain passes through it (their top controller may have moved);
 * - a group of Kubernetes' own (`system:serviceaccounts:<ns>`, `system:unauthenticated`): its
 *   members; `system:authenticated` and `system:serviceaccounts` reach every account, so the push
 *   is recomputed whole.
 *
 * A pod, workload or ServiceAccount whose new version holds nothing the engine reads differently
 * (same digest link: a status update of a running pod) is no change. RBAC objects always are: the
 * identities keep the ids of the versions they were computed from.
 */
import type { Executor } from '../../db/database.js';
import { aggregateClusterRoles } from '../../engines/rbac/aggregation.js';
import { objectKey } from '../../engines/rbac/ids.js';
import { readInventory } from '../../engines/rbac/objects.js';
import { createHandles } from '../../engines/rbac/permissions.js';
import type { ChangedResource } from '../../ingest/kubernetes/resource-store.js';
import { identityKey, linksOfSources, loadLinksOf, loadLinksTo, type SourceLink } from './source-links.js';
import {
  type LatestObject,
  latestWithNamesakes,
  liveOfKind,
  namesOfUids,
  type SourceScope,
} from './source-queries.js';
import { type ClusterScope, IDENTITY_SOURCE_KINDS, RBAC_KINDS } from './sources.js';

/** Owner chains the engine follows are at most this long (usage.ts). */
const MAX_OWNER_DEPTH = 10;

export interface PushDelta {
  /** identity keys to recompute; ignored when `whole` */
  identities: Set<string>;
  /** the change reaches every service account: recompute the cluster */
  whole: boolean;
  /** objects whose links are rewritten (every changed source object and its namesakes) */
  linkedUids: string[];
  /** their links now */
  links: SourceLink[];
  /** the RBAC objects whose rbac_objects rows are refreshed (deleted ones included) */
  rbacUids: string[];
  /** live RBAC objects among them, the sources of those rows */
  rbacObjects: LatestObject[];
  clusterRolesChanged: boolean;
}

const isRbac = (kind: string) => (RBAC_KINDS as readonly string[]).includes(kind);

function group(links: readonly SourceLink[]): Map<string, SourceLink[]> {
  const byUid = new Map<string, SourceLink[]>();
  for (const link of links) byUid.set(link.uid, [...(byUid.get(link.uid) ?? []), link]);
  return byUid;
}

const keysOf = (links: readonly SourceLink[] | undefined, kind: SourceLink['link']) =>
  (links ?? []).filter((link) => link.link === kind).map((link) => link.key);

/** ClusterRoles aggregating any of these ClusterRoles, before (rbac_objects) or now. */
async function aggregatorsOf(db: Executor, scope: SourceScope, names: ReadonlySet<string>) {
  const found = new Set<string>();
  const { rows } = await db.query<{ name: string; components: string[] | string }>(
    `select name, components from rbac_objects
      where account_id = $1 and cluster_id = $2 and kind = 'ClusterRole' and components is not null`,
    [scope.accountId, scope.clusterId],
  );
  for (const row of rows) {
    const components = typeof row.components === 'string' ? JSON.parse(row.components) : row.components;
    if ((components as string[]).some((name) => names.has(name))) found.add(row.name);
  }
  const live = await liveOfKind(db, scope, 'ClusterRole');
  const handles = createHandles(scope.clusterId);
  const aggregation = aggregateClusterRoles(readInventory(live.map((o) => o.raw)).clusterRoles, (role) =>
    handles(role.kind, '', role.meta.name, role),
  );
  for (const [name, components] of aggregation.components) {
    if (components.some((component) => names.has(component.meta.name))) found.add(name);
  }
  return { aggregators: found, clusterRoles: live };
}

/** Service accounts of objects whose owner chain passes through these pods or workloads. */
async function descendantsUses(db: Executor, scope: ClusterScope, objects: readonly LatestObject[]) {
  const uses = new Set<string>();
  const seen = new Set(objects.map((object) => object.uid));
  let frontier = objects.flatMap((o) => [`uid:${o.uid}`, `key:${objectKey(o.kind, o.namespace, o.name)}`]);
  for (let depth = 0; depth < MAX_OWNER_DEPTH && frontier.length > 0; depth++) {
    const children = [...new Set((await loadLinksTo(db, scope, 'owner', frontier)).map((l) => l.uid))].filter(
      (uid) => !seen.has(uid),
    );
    for (const uid of children) seen.add(uid);
    for (const key of keysOf(await loadLinksOf(db, scope, children), 'uses')) uses.add(key);
    frontier = (await namesOfUids(db, scope, children)).flatMap((o) => [
      `uid:${o.uid}`,
      `key:${objectKey(o.kind, o.namespace, o.name)}`,
    ]);
  }
  return uses;
}

const WHOLE_CLUSTER_GROUPS = new Set(['Group//system:authenticated', 'Group//system:serviceaccounts']);
const NAMESPACE_GROUP = 'Group//system:serviceaccounts:';

/** Adds the members of Kubernetes' own groups; false when a group reaches every account. */
async function addGroupMembers(db: Executor, scope: ClusterScope, keys: Set<string>): Promise<boolean> {
  if ([...keys].some((key) => WHOLE_CLUSTER_GROUPS.has(key))) return false;
  if (keys.has('Group//system:unauthenticated')) keys.add(identityKey('User', '', 'system:anonymous'));
  const namespaces = [...keys]
    .filter((key) => key.startsWith(NAMESPACE_GROUP))
    .map((key) => key.slice(NAMESPACE_GROUP.length));
  if (namespaces.length > 0) {
    const { rows } = await db.query<{ namespace: string; name: string }>(
      `select namespace, name from identities
        where account_id = $1 and cluster_id = $2 and type = 'k8s_service_account'
          and namespace = any($3::text[])`,
      [scope.accountId, scope.clusterId, namespaces],
    );
    for (const row of rows) keys.add(identityKey('ServiceAccount', row.namespace, row.name));
  }
  return true;
}

/** What the push changed for identities; null when nothing the engine reads changed. */
export async function readPushDelta(
  db: Executor,
  scope: SourceScope,
  changed: readonly ChangedResource[],
): Promise<PushDelta | null> {
  const changedUids = new Set(changed.filter((c) => IDENTITY_SOURCE_KINDS.has(c.kind)).map((c) => c.uid));
  if (changedUids.size === 0) return null;
  const objects = await latestWithNamesakes(db, scope, [...changedUids]);
  const uids = [...new Set(objects.map((object) => object.uid))];
  const before = group(await loadLinksOf(db, scope, uids));
  const links = linksOfSources(
    scope.clusterId,
    objects.filter((object) => object.live),
  );
  const after = group(links);
  const namesakes = new Map<string, number>();
  const nameOf = (o: LatestObject) =>
    objectKey(o.kind, isRbac(o.kind) && o.kind.startsWith('Cluster') ? '' : o.namespace, o.name);
  for (const object of objects) namesakes.set(nameOf(object), (namesakes.get(nameOf(object)) ?? 0) + 1);
  const digest = (links: SourceLink[] | undefined) => keysOf(links, 'digest').join();
  const relevant = objects.filter(
    (o) =>
      (namesakes.get(nameOf(o)) ?? 0) > 1 ||
      (isRbac(o.kind) ? changedUids.has(o.uid) : digest(before.get(o.uid)) !== digest(after.get(o.uid))),
  );
  if (relevant.length === 0) return null;

  const identities = new Set<string>();
  const roleKeys = new Set<string>();
  const changedClusterRoles = new Set<string>();
  const workloads: LatestObject[] = [];
  for (const object of relevant) {
    const all = [...(before.get(object.uid) ?? []), ...(after.get(object.uid) ?? [])];
    if (object.kind === 'ServiceAccount')
      identities.add(identityKey(object.kind, object.namespace, object.name));
    else if (object.kind === 'Role') roleKeys.add(objectKey('Role', object.namespace, object.name));
    else if (object.kind === 'ClusterRole') changedClusterRoles.add(object.name);
    else if (!isRbac(object.kind)) workloads.push(object);
    for (const key of [...keysOf(all, 'subject'), ...keysOf(all, 'uses')]) identities.add(key);
  }
  let clusterRoles: LatestObject[] = [];
  if (changedClusterRoles.size > 0) {
    const found = await aggregatorsOf(db, scope, changedClusterRoles);
    clusterRoles = found.clusterRoles;
    for (const name of [...changedClusterRoles, ...found.aggregators])
      roleKeys.add(objectKey('ClusterRole', '', name));
  }
  const bindings = (await loadLinksTo(db, scope, 'role', [...roleKeys])).map((link) => link.uid);
  for (const key of keysOf(await loadLinksOf(db, scope, bindings), 'subject')) identities.add(key);
  for (const key of await descendantsUses(db, scope, workloads)) identities.add(key);
  const whole = !(await addGroupMembers(db, scope, identities));

  const rbacChanged = relevant.filter((object) => isRbac(object.kind));
  const rbacUids = new Set(rbacChanged.map((object) => object.uid));
  if (changedClusterRoles.size > 0) for (const role of clusterRoles) rbacUids.add(role.uid);
  return {
    identities,
    whole,
    linkedUids: uids,
    links,
    rbacUids: [...rbacUids],
    rbacObjects: [
      ...new Map(
        [...rbacChanged.filter((o) => o.live), ...clusterRoles].map((o) => [o.recordId, o]),
      ).values(),
    ],
    clusterRolesChanged: changedClusterRoles.size > 0,
  };
}
