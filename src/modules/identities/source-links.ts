/**
 * The identity-relevant references of each live source object (migration 0013): what the delta
 * recompute reads to know which identities a changed object touched before and after the push,
 * and which objects an identity needs. Links are computed with the engine's own readers, so a
 * link means exactly what the engine makes of the object.
 *
 * | object | links |
 * | --- | --- |
 * | RoleBinding, ClusterRoleBinding | `subject` identity key per subject, `role` role key |
 * | Pod, workload | `uses` service account key, `owner` `uid:<uid>` and `key:<kind/ns/name>` of its controller, `digest` |
 * | ServiceAccount | `digest` |
 *
 * An identity key is `ServiceAccount/<ns>/<name>`, `User//<name>` or `Group//<name>`; a role key
 * `Role/<ns>/<name>` or `ClusterRole//<name>`.
 */
import { hash } from 'node:crypto';
import type { Executor } from '../../db/database.js';
import { objectKey } from '../../engines/rbac/ids.js';
import { readInventory } from '../../engines/rbac/objects.js';
import type { KubeObject, OwnerReference } from '../../engines/rbac/types.js';
import { batches } from '../../ingest/batches.js';
import { subjectIdentity } from '../rbac/subjects.js';
import type { ClusterScope, SourceObject } from './sources.js';

export type LinkKind = 'subject' | 'role' | 'uses' | 'owner' | 'digest';

export interface SourceLink {
  uid: string;
  link: LinkKind;
  key: string;
}

export const identityKey = (kind: string, namespace: string, name: string): string =>
  objectKey(kind, namespace, name);

/** The owner reference the engine follows (usage.ts): the controller, else the first. */
export const controllerOf = (refs: readonly OwnerReference[]): OwnerReference | undefined =>
  refs.find((ref) => ref.controller) ?? refs[0];

const digestOf = (parts: unknown[]): string => hash('sha256', JSON.stringify(parts), 'hex').slice(0, 32);

/** What the engine reads from a pod, workload or ServiceAccount beyond its name (usage.ts, engine.ts). */
function usageDigest(object: KubeObject & { serviceAccountName?: string; phase?: string }): string {
  const owner = controllerOf(object.meta.ownerReferences);
  const base = [object.meta.uid, object.meta.creationTimestamp, owner ?? null];
  if (object.kind === 'ServiceAccount') return digestOf(base);
  if (object.kind !== 'Pod') return digestOf([...base, object.serviceAccountName]);
  const pod = object as KubeObject & { phase: string; startTime: string | null; finishedAt: string | null };
  // A running pod uses its account "now": another version of it running changes nothing stored.
  const finished = pod.phase === 'Succeeded' || pod.phase === 'Failed';
  return digestOf([
    ...base,
    object.serviceAccountName,
    finished ? [pod.finishedAt, pod.startTime] : 'running',
  ]);
}

/** The links of one object version (none for an object the engine would skip). */
export function linksOf(clusterId: string, raw: unknown): SourceLink[] {
  const inventory = readInventory([raw]);
  const links: SourceLink[] = [];
  for (const binding of [...inventory.roleBindings, ...inventory.clusterRoleBindings]) {
    const uid = binding.meta.uid;
    for (const subject of binding.subjects) {
      const identity = subjectIdentity(clusterId, subject, {
        kind: binding.kind,
        namespace: binding.meta.namespace,
      });
      if (identity !== null)
        links.push({
          uid,
          link: 'subject',
          key: identityKey(identity.kind, identity.namespace, identity.name),
        });
    }
    const { kind, name } = binding.roleRef;
    const namespace = kind === 'Role' ? binding.meta.namespace : '';
    links.push({ uid, link: 'role', key: objectKey(kind, namespace, name) });
  }
  for (const object of [...inventory.pods, ...inventory.workloads]) {
    const { uid, namespace } = object.meta;
    links.push({
      uid,
      link: 'uses',
      key: identityKey('ServiceAccount', namespace, object.serviceAccountName),
    });
    const owner = controllerOf(object.meta.ownerReferences);
    if (owner !== undefined) {
      if (owner.uid !== '') links.push({ uid, link: 'owner', key: `uid:${owner.uid}` });
      links.push({ uid, link: 'owner', key: `key:${objectKey(owner.kind, namespace, owner.name)}` });
    }
    links.push({ uid, link: 'digest', key: usageDigest(object) });
  }
  for (const account of inventory.serviceAccounts) {
    links.push({ uid: account.meta.uid, link: 'digest', key: usageDigest(account) });
  }
  // An object without uid cannot be found again by uid; its kind/name lookups still work.
  return links.filter((link) => link.uid !== '');
}

export const linksOfSources = (clusterId: string, sources: readonly SourceObject[]): SourceLink[] =>
  sources.flatMap((source) => linksOf(clusterId, source.raw).filter((link) => link.uid === source.uid));

/** The stored links of some objects (of one kind only, when given). */
export async function loadLinksOf(
  db: Executor,
  scope: ClusterScope,
  uids: readonly string[],
  link?: LinkKind,
) {
  if (uids.length === 0) return [];
  const { rows } = await db.query<SourceLink>(
    `select uid, link, key from identity_source_links
      where account_id = $1 and cluster_id = $2 and uid = any($3::text[])${link ? ' and link = $4' : ''}`,
    link ? [scope.accountId, scope.clusterId, uids, link] : [scope.accountId, scope.clusterId, uids],
  );
  return rows;
}

/** The links of one kind whose key is one of these: the objects that reference them. */
export async function loadLinksTo(
  db: Executor,
  scope: ClusterScope,
  link: LinkKind,
  keys: readonly string[],
) {
  if (keys.length === 0) return [];
  const { rows } = await db.query<SourceLink>(
    `select uid, link, key from identity_source_links
      where account_id = $1 and cluster_id = $2 and link = $3 and key = any($4::text[])`,
    [scope.accountId, scope.clusterId, link, keys],
  );
  return rows;
}

/** Replaces the links of these objects (changed or deleted) with the given ones. */
export async function replaceLinks(
  db: Executor,
  scope: ClusterScope,
  uids: readonly string[],
  links: readonly SourceLink[],
) {
  for (const batch of batches([...uids])) {
    await db.query(
      'delete from identity_source_links where account_id = $1 and cluster_id = $2 and uid = any($3::text[])',
      [scope.accountId, scope.clusterId, batch],
    );
  }
  for (const batch of batches([...links], 5000)) {
    await db.query(
      `insert into identity_source_links (account_id, cluster_id, uid, link, key)
       select $1, $2, uid, link, key from unnest($3::text[], $4::text[], $5::text[]) as v (uid, link, key)
       on conflict do nothing`,
      [
        scope.accountId,
        scope.clusterId,
        batch.map((l) => l.uid),
        batch.map((l) => l.link),
        batch.map((l) => l.key),
      ],
    );
  }
}

const linkId = (link: SourceLink) => `${link.uid}\u0000${link.link}\u0000${link.key}`;

/** Removes these links (exact rows), in batches. */
async function deleteLinks(db: Executor, scope: ClusterScope, links: readonly SourceLink[]) {
  for (const batch of batches([...links], 5000)) {
    await db.query(
      `delete from identity_source_links l
        using unnest($3::text[], $4::text[], $5::text[]) as v (uid, link, key)
        where l.account_id = $1 and l.cluster_id = $2 and l.uid = v.uid and l.link = v.link and l.key = v.key`,
      [
        scope.accountId,
        scope.clusterId,
        batch.map((l) => l.uid),
        batch.map((l) => l.link),
        batch.map((l) => l.key),
      ],
    );
  }
}

/**
 * Brings every link of the cluster in line with its live sources (the full recompute) and marks it
 * linked. Only the difference is written: a full recompute after a push of bindings keeps the
 * links of every pod, workload and ServiceAccount it did not touch, and rewriting them all was
 * most of its writes (docs/performance.md, "Fix 16c").
 */
export async function rebuildLinks(
  db: Executor,
  scope: ClusterScope,
  sources: readonly SourceObject[],
  at: Date,
) {
  const { rows: stored } = await db.query<SourceLink>(
    'select uid, link, key from identity_source_links where account_id = $1 and cluster_id = $2',
    [scope.accountId, scope.clusterId],
  );
  const wanted = new Map(linksOfSources(scope.clusterId, sources).map((link) => [linkId(link), link]));
  const storedIds = new Set(stored.map(linkId));
  await deleteLinks(
    db,
    scope,
    stored.filter((link) => !wanted.has(linkId(link))),
  );
  await replaceLinks(
    db,
    scope,
    [],
    [...wanted.entries()].filter(([id]) => !storedIds.has(id)).map(([, link]) => link),
  );
  await db.query(
    `insert into identity_source_state (account_id, cluster_id, linked_at) values ($1, $2, $3)
     on conflict (account_id, cluster_id) do update set linked_at = excluded.linked_at`,
    [scope.accountId, scope.clusterId, at],
  );
}

export async function isLinked(db: Executor, scope: ClusterScope): Promise<boolean> {
  const { rows } = await db.query(
    'select 1 from identity_source_state where account_id = $1 and cluster_id = $2',
    [scope.accountId, scope.clusterId],
  );
  return rows.length > 0;
}
