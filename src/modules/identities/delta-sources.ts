/**
 * The source objects a set of identities is computed from, and nothing more: their
 * ServiceAccounts, the bindings naming them or the groups Kubernetes puts them in, the roles those
 * bindings reference (every ClusterRole when one of them aggregates), and the pods and workloads
 * running as them with their owner chains. Run through the engine, these objects give those
 * identities exactly what the whole cluster gives them (the property test in
 * test/identities/delta-recompute.test.ts holds the two side by side).
 *
 * Reads identity_source_links after the push's links are written.
 */
import type { Executor } from '../../db/database.js';
import { implicitGroups } from '../../engines/rbac/identities.js';
import { isRecord } from '../../engines/rbac/objects.js';
import { identityKey, linksOfSources, loadLinksOf, loadLinksTo } from './source-links.js';
import {
  type LatestObject,
  liveByName,
  liveOfKind,
  liveWithNamesakes,
  type ObjectName,
  type SourceScope,
} from './source-queries.js';

/** Owner chains the engine follows are at most this long (usage.ts). */
const MAX_OWNER_DEPTH = 10;

export interface ParsedKey {
  kind: 'ServiceAccount' | 'User' | 'Group';
  namespace: string;
  name: string;
}

/** `kind/namespace/name`; a user's name may itself hold slashes. */
function parseObjectKey(key: string): { kind: string; namespace: string; name: string } {
  const first = key.indexOf('/');
  const second = key.indexOf('/', first + 1);
  return { kind: key.slice(0, first), namespace: key.slice(first + 1, second), name: key.slice(second + 1) };
}

export const parseIdentityKey = (key: string): ParsedKey => parseObjectKey(key) as ParsedKey;

/** `Role/ns/name` or `ClusterRole//name` as a lookup (a ClusterRole in any pushed namespace). */
function roleName(key: string): ObjectName {
  const { kind, namespace, name } = parseObjectKey(key);
  return { kind, namespace: kind === 'ClusterRole' ? null : namespace, name };
}

function unique(objects: readonly LatestObject[]): LatestObject[] {
  return [...new Map(objects.map((object) => [object.recordId, object])).values()];
}

/**
 * Pods and workloads running as these accounts, with every owner up their chains. The engine
 * finds an owner by uid, and by kind/namespace/name only when no object has that uid: the name
 * lookup is made for those alone.
 */
async function usageObjects(db: Executor, scope: SourceScope, accountKeys: readonly string[]) {
  const users = (await loadLinksTo(db, scope, 'uses', accountKeys)).map((link) => link.uid);
  let found = await liveWithNamesakes(db, scope, [...new Set(users)]);
  const loaded = new Map(found.map((object) => [object.recordId, object]));
  for (let depth = 0; depth <= MAX_OWNER_DEPTH && found.length > 0; depth++) {
    // The stored owner links of these live objects are what linksOf makes of their JSON (the
    // push's own were written before this read): reading them is an index lookup, computing
    // them again parsed every pod of the accounts into an inventory on every push (Fix 16c).
    const owners = await loadLinksOf(
      db,
      scope,
      found.map((object) => object.uid),
      'owner',
    );
    const refs = new Map<string, { uid?: string; name?: string }>();
    for (const { uid, key } of owners) {
      const ref = refs.get(uid) ?? {};
      if (key.startsWith('uid:')) ref.uid = key.slice('uid:'.length);
      else ref.name = key.slice('key:'.length);
      refs.set(uid, ref);
    }
    const byUid = await liveWithNamesakes(db, scope, [
      ...new Set([...refs.values()].flatMap((ref) => (ref.uid ? [ref.uid] : []))),
    ]);
    const uids = new Set(byUid.map((object) => object.uid));
    const unresolved = [...refs.values()].filter((ref) => ref.name && !(ref.uid && uids.has(ref.uid)));
    const byName = await liveByName(
      db,
      scope,
      unresolved.map((ref) => parseObjectKey(ref.name!)),
    );
    found = unique([...byUid, ...byName].filter((object) => !loaded.has(object.recordId)));
    for (const object of found) loaded.set(object.recordId, object);
  }
  return [...loaded.values()];
}

/** Every live object the engine needs to compute these identities as the whole cluster would. */
export async function loadSourcesOf(
  db: Executor,
  scope: SourceScope,
  identityKeys: ReadonlySet<string>,
): Promise<LatestObject[]> {
  const identities = [...identityKeys].map(parseIdentityKey);
  const accounts = identities.filter((identity) => identity.kind === 'ServiceAccount');
  const subjects = new Set(identityKeys);
  for (const identity of identities) {
    for (const group of implicitGroups(identity)) subjects.add(identityKey('Group', '', group));
  }
  const bindingUids = (await loadLinksTo(db, scope, 'subject', [...subjects])).map((link) => link.uid);
  const bindings = await liveWithNamesakes(db, scope, [...new Set(bindingUids)]);
  const roleKeys = new Set(
    linksOfSources(scope.clusterId, bindings)
      .filter((link) => link.link === 'role')
      .map((link) => link.key),
  );
  let roles = await liveByName(db, scope, [...roleKeys].map(roleName));
  // An aggregated ClusterRole holds its components' rules: aggregation needs every ClusterRole.
  if (roles.some((role) => role.kind === 'ClusterRole' && isRecord(role.raw.aggregationRule))) {
    roles = [...roles, ...(await liveOfKind(db, scope, 'ClusterRole'))];
  }
  const serviceAccounts = await liveByName(
    db,
    scope,
    accounts.map((account) => ({ kind: 'ServiceAccount', namespace: account.namespace, name: account.name })),
  );
  const accountKeys = accounts.map((a) => identityKey('ServiceAccount', a.namespace, a.name));
  const usage = await usageObjects(db, scope, accountKeys);
  return unique([...serviceAccounts, ...bindings, ...roles, ...usage]);
}
