/**
 * Applies a validated Kubernetes push to one cluster, inside the caller's transaction: new object
 * versions become records (the newest one per uid is the latest), DELETED events and snapshot
 * absence mark objects deleted, and the derived rows (image digests, inventory containers)
 * follow in the same transaction. Rules: docs/kubernetes-ingestion.md.
 *
 * @example
 *   await db.transaction((tx) => applyKubernetesPush(tx, cluster, objects, { mode: 'snapshot', ... }));
 */
import type { Executor } from '../../db/database.js';
import { type ContainerImageRefs, refreshInventory } from './inventory.js';
import type { KubeObject } from './object.js';
import * as store from './resource-store.js';
import { isNewerVersion } from './versions.js';

export type IngestMode = 'incremental' | 'snapshot';

export interface PushOptions {
  mode: IngestMode;
  /** when the agent observed the objects: the records' watched_at and deleted_at */
  observedAt: Date;
  /** the records' ingested_at */
  now: Date;
}

export interface PushCounts {
  /** versions stored for the first time */
  created: number;
  /** pushed versions already stored, that changed nothing */
  unchanged: number;
  /** objects marked deleted (DELETED events, snapshot absence) */
  deleted: number;
  /** objects a snapshot had marked deleted and that were pushed again */
  restored: number;
}

export interface PushOutcome {
  counts: PushCounts;
  /**
   * Objects whose latest version changed: a new latest version, deleted, or restored. What the
   * engines derived from resources (identities, findings) recompute from.
   */
  changed: store.ChangedResource[];
  /** the images of the containers that started, stopped or changed owner */
  containerImages: ContainerImageRefs;
  /**
   * The live latest versions this push stored (ingested now), as parsed: the engines that derive
   * from resources take their JSON from here rather than reading back what was just written.
   */
  written: KubeObject[];
}

export interface ClusterRef {
  accountId: string;
  clusterId: string;
  clusterName: string;
}

/** Per uid, the newest of the pushed versions not stored yet, against the stored latest. */
function planVersions(fresh: KubeObject[], latest: Map<string, store.LatestVersion>, now: Date) {
  const newest = new Map<string, KubeObject>();
  for (const object of fresh) {
    const best = newest.get(object.uid);
    if (!best || isNewerVersion(object.resourceVersion, best.resourceVersion)) newest.set(object.uid, object);
  }
  const demoted: string[] = [];
  const winners = new Set<string>();
  for (const [uid, object] of newest) {
    const current = latest.get(uid);
    if (current && !isNewerVersion(object.resourceVersion, current.resource_version)) continue;
    winners.add(object.id);
    if (current) demoted.push(current.id);
  }
  const versions = fresh.map((object) => ({
    object,
    isLatest: winners.has(object.id),
    overwrittenAt: winners.has(object.id) ? null : now,
  }));
  return { versions, demoted, newLatest: fresh.filter((object) => winners.has(object.id)) };
}

/**
 * Snapshot mode: live objects of the pushed kinds whose uid the push does not hold. The set
 * difference is taken here rather than in SQL, where it is an anti-join against a parameter
 * array that PostgreSQL plans poorly.
 */
async function deleteAbsent(
  db: Executor,
  scope: store.Scope,
  pushed: KubeObject[],
  lastEvent: Map<string, KubeObject['event']>,
  at: Date,
) {
  const present = pushed.filter((object) => lastEvent.get(object.uid) !== 'DELETED');
  const kinds = [...new Set(present.map((object) => object.kind))];
  const presentUids = new Set(present.map((object) => object.uid));
  const live = await store.findLiveIdsOfKinds(db, scope, kinds);
  const absent = live.filter((id) => !presentUids.has(id.slice(0, id.indexOf('_'))));
  return store.markAbsentDeleted(db, scope, absent, at);
}

export async function applyKubernetesPush(
  db: Executor,
  cluster: ClusterRef,
  objects: KubeObject[],
  options: PushOptions,
): Promise<PushOutcome> {
  const scope = { accountId: cluster.accountId, clusterId: cluster.clusterId };
  // Later items win: a stream's last event for a uid decides whether it ends deleted.
  const byId = new Map<string, KubeObject>();
  const lastEvent = new Map<string, KubeObject['event']>();
  for (const object of objects) {
    byId.set(object.id, object);
    lastEvent.set(object.uid, object.event);
  }
  const pushed = [...byId.values()];
  const stored = await store.findStoredVersions(
    db,
    scope,
    pushed.map((object) => object.id),
  );
  const fresh = pushed.filter((object) => !stored.has(object.id));
  const latest = await store.findLatestVersions(db, scope, [...new Set(fresh.map((o) => o.uid))]);
  const plan = planVersions(fresh, latest, options.now);

  await store.markOverwritten(db, scope, plan.demoted, options.now);
  await store.insertVersions(db, scope, plan.versions, {
    ingestedAt: options.now,
    watchedAt: options.observedAt,
  });

  const deletedUids = [...lastEvent].flatMap(([uid, event]) => (event === 'DELETED' ? [uid] : []));
  const deleted = await store.markDeleted(db, scope, deletedUids, options.observedAt);
  if (options.mode === 'snapshot') {
    deleted.push(...(await deleteAbsent(db, scope, pushed, lastEvent, options.observedAt)));
  }
  const restorable = pushed.filter(
    (object) =>
      stored.get(object.id)?.deletion_source === 'snapshot' && lastEvent.get(object.uid) !== 'DELETED',
  );
  const restored = await store.restoreVersions(
    db,
    scope,
    restorable.map((object) => object.id),
  );

  // Inventory: pods whose latest version changed, and the owners of pods that changed.
  const deletedSet = new Set(deleted.map((row) => row.uid));
  const restoredSet = new Set(restored.map((row) => row.uid));
  const liveChanged = [
    ...plan.newLatest,
    ...restorable.filter((object) => restoredSet.has(object.uid)),
  ].filter((object) => !deletedSet.has(object.uid));
  const changed = [...liveChanged.map(({ uid, kind }) => ({ uid, kind })), ...deleted];
  const containerImages = await refreshInventory(
    db,
    { ...scope, clusterName: cluster.clusterName },
    {
      changedPodUids: [...new Set(changed.filter((c) => c.kind === 'Pod').map((c) => c.uid))],
      livePods: liveChanged.filter((object) => object.kind === 'Pod'),
      changedOwnerUids: [...new Set(changed.filter((c) => c.kind !== 'Pod').map((c) => c.uid))],
    },
    options.now,
  );
  await store.touchCluster(db, scope, options.now);

  const deletedByEvent = new Set(deletedUids.filter((uid) => deletedSet.has(uid)));
  const unchanged = pushed.filter(
    (object) => stored.has(object.id) && !restoredSet.has(object.uid) && !deletedByEvent.has(object.uid),
  ).length;
  return {
    counts: { created: fresh.length, unchanged, deleted: deleted.length, restored: restored.length },
    changed,
    containerImages,
    written: plan.newLatest.filter((object) => !deletedSet.has(object.uid)),
  };
}
