/**
 * Keeps inventory_containers in step with the pods of a cluster, inside the ingestion
 * transaction: a pod whose latest version changed gets the rows of its running containers (none
 * when it is deleted or finished): a container it still runs keeps its row, rewritten only where
 * a value changed, a new one is inserted and a gone one deleted. Rows whose owner chain passes
 * through an object that changed are resolved again, so a ReplicaSet or Deployment pushed after
 * its pods still becomes their owner.
 */
import { hash } from 'node:crypto';
import type { Executor } from '../../db/database.js';
import { version5Uuid } from '../../version5-uuid.js';
import * as inventory from './inventory-store.js';
import type { KubeObject, OwnerRef } from './object.js';
import { MAX_OWNER_DEPTH, type OwnerNode, type ResolvedOwner, resolveTopOwner } from './owners.js';
import { runningContainersOf } from './pod-spec.js';
import { findOwnerNodes, type Scope } from './resource-store.js';

/**
 * The distinct images of the container rows a push removed, added or re-owned: what the CVE
 * report's usage is recomputed for (src/modules/vulnerabilities/usage-listener.ts).
 */
export interface ContainerImageRefs {
  /** registry digests, matched against a scan's image digest and config digest */
  digests: string[];
  /** repository + tag pairs (same length), matched against scans that know no digest */
  repos: string[];
  tags: string[];
}

function imageRefsOf(images: inventory.ContainerImage[]): ContainerImageRefs {
  const digests = new Set<string>();
  const repoTags = new Map<string, { repo: string; tag: string }>();
  for (const image of images) {
    if (image.image_digest) digests.add(image.image_digest);
    if (image.image_repo)
      repoTags.set(`${image.image_repo}\u0000${image.image_tag}`, {
        repo: image.image_repo,
        tag: image.image_tag,
      });
  }
  const pairs = [...repoTags.values()];
  return {
    digests: [...digests],
    repos: pairs.map((pair) => pair.repo),
    tags: pairs.map((pair) => pair.tag),
  };
}

export interface InventoryChanges {
  /** pods whose latest version changed in this push: new version, deleted or restored */
  changedPodUids: string[];
  /** the live latest versions among them */
  livePods: KubeObject[];
  /** other objects whose latest version changed */
  changedOwnerUids: string[];
}

/** A UUID (version 5 layout) derived from its parts: a container keeps its id across pushes. */
export function stableId(...parts: string[]): string {
  // crypto.hash: one call instead of a Hash object per id (a scan push makes one per CVE row)
  return version5Uuid(hash('sha1', parts.join('\u0000'), 'buffer'));
}

/** Loads the owner chains starting at these uids, one query per level. */
async function loadOwnerChains(db: Executor, scope: Scope, startUids: Iterable<string>) {
  const nodes = new Map<string, OwnerNode>();
  let frontier = [...new Set(startUids)];
  for (let depth = 0; depth < MAX_OWNER_DEPTH && frontier.length > 0; depth++) {
    const next = new Set<string>();
    for (const node of await findOwnerNodes(db, scope, frontier)) {
      nodes.set(node.uid, node);
      if (node.owner && !nodes.has(node.owner.uid)) next.add(node.owner.uid);
    }
    frontier = [...next].filter((uid) => !nodes.has(uid));
  }
  return nodes;
}

const podAsOwner = (pod: KubeObject): ResolvedOwner => ({
  uid: pod.uid,
  id: pod.id,
  kind: pod.kind,
  name: pod.name,
  namespace: pod.namespace,
  resourceVersion: pod.resourceVersion,
});

export async function refreshInventory(
  db: Executor,
  scope: Scope & { clusterName: string },
  changes: InventoryChanges,
  now: Date,
): Promise<ContainerImageRefs> {
  // The images of every replaced row, as when they were all deleted: the CVE usage of an image
  // a row no longer runs is recomputed too.
  const previous = await inventory.findContainersOfPods(db, scope, changes.changedPodUids);
  const replaced = new Set(changes.changedPodUids);
  const stale = (await inventory.findRowsOwnedBy(db, scope, changes.changedOwnerUids)).filter(
    (row) => !replaced.has(row.pod_uid),
  );
  const starts = [
    ...changes.livePods.flatMap((pod) => (pod.owner ? [pod.owner.uid] : [])),
    ...stale.flatMap((row) => (row.pod_owner_uid ? [row.pod_owner_uid] : [])),
  ];
  const nodes = await loadOwnerChains(db, scope, starts);

  const rows = changes.livePods.flatMap((pod) => {
    const owner = resolveTopOwner(podAsOwner(pod), pod.owner, nodes);
    return runningContainersOf(pod.raw).map((container): inventory.InventoryRow => {
      const values: inventory.ContainerValues = {
        id: stableId(scope.clusterId, pod.uid, container.name),
        cluster_name: scope.clusterName,
        pod_uid: pod.uid,
        pod_resource_id: pod.id,
        pod_name: pod.name,
        pod_namespace: pod.namespace,
        pod_owner_uid: pod.owner?.uid ?? null,
        pod_owner_kind: pod.owner?.kind ?? null,
        pod_owner_name: pod.owner?.name ?? null,
        name: container.name,
        container_id: container.containerId,
        container_runtime: container.runtime,
        image: container.image,
        image_repo: container.ref.repo,
        image_name: container.ref.name,
        image_tag: container.ref.tag,
        image_digest: container.ref.digest,
        owner,
        created_at: container.startedAt ?? pod.createdAt ?? now.toISOString(),
      };
      return { ...values, values_digest: inventory.containerValuesDigest(values) };
    });
  });
  // A container's id derives from its cluster, pod and name, so a pod's new version finds the
  // rows of the containers it still runs by id. Updating them rather than deleting and
  // inserting them again spares the table's 14 indexes (docs/performance.md, "Fix 14"); only
  // those whose values changed are sent, told by their digests ("Fix 64").
  const storedDigest = new Map(previous.map((row) => [row.id, row.values_digest]));
  const kept = new Set(rows.map((row) => row.id));
  await inventory.deleteContainers(
    db,
    scope,
    previous.filter((row) => !kept.has(row.id)).map((row) => row.id),
  );
  await inventory.updateContainers(
    db,
    scope,
    rows.filter((row) => storedDigest.has(row.id) && storedDigest.get(row.id) !== row.values_digest),
  );
  await inventory.insertContainers(
    db,
    scope,
    rows.filter((row) => !storedDigest.has(row.id)),
  );

  const updates = stale.flatMap((row) => {
    if (!row.pod_owner_uid) return [];
    const start: OwnerRef = {
      uid: row.pod_owner_uid,
      kind: row.pod_owner_kind ?? '',
      name: row.pod_owner_name ?? '',
    };
    // A pod with a controller never resolves to itself, so the pod placeholder is never used.
    const placeholder: ResolvedOwner = {
      ...start,
      id: '',
      namespace: row.pod_namespace,
      resourceVersion: '',
    };
    return [{ id: row.id, owner: resolveTopOwner(placeholder, start, nodes) }];
  });
  await inventory.updateOwners(db, scope, updates);
  return imageRefsOf([...previous, ...rows, ...stale]);
}
