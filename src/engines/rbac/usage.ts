/**
 * Which workloads run as each ServiceAccount, and when it was last used.
 *
 * - A pod runs as `spec.serviceAccountName` (`default` when absent). It counts for its top
 *   controller, found through `ownerReferences` (Pod -> ReplicaSet -> Deployment, Pod -> Job ->
 *   CronJob); a bare pod counts as itself. An owner missing from the input ends the walk at the
 *   reference, without guessing further.
 * - A top-level workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController,
 *   Job, CronJob without an owner) counts for the account of its pod template even with no pod
 *   running, e.g. scaled to zero: it uses the account as soon as it scales up. Owned workloads
 *   (a Deployment's old ReplicaSets) do not: their template may name an account the owner no
 *   longer uses.
 * - `last_used_at`: a pod that is running, pending or of unknown phase uses its account now (the
 *   time of the computation); a finished pod used it until its last container finished (else
 *   its start, else its creation). Never later than now.
 */
import { objectKey } from './ids.js';
import { sortBy } from './order.js';
import type { Inventory, KubeObject, OwnerReference, PodObject, WorkloadRef } from './types.js';

export interface ServiceAccountUsage {
  workloads: WorkloadRef[];
  lastUsedAt: string | null;
}

const MAX_OWNER_DEPTH = 10;

const refOf = (object: KubeObject): WorkloadRef => ({
  kind: object.kind,
  namespace: object.meta.namespace,
  name: object.meta.name,
  uid: object.meta.uid,
});

const controllerOf = (refs: readonly OwnerReference[]): OwnerReference | undefined =>
  refs.find((ref) => ref.controller) ?? refs[0];

export function createOwnerResolver(objects: readonly KubeObject[]) {
  const byUid = new Map<string, KubeObject>();
  const byKey = new Map<string, KubeObject>();
  for (const object of objects) {
    if (object.meta.uid !== '') byUid.set(object.meta.uid, object);
    byKey.set(objectKey(object.kind, object.meta.namespace, object.meta.name), object);
  }
  /** The top controller of an object (the object itself when nothing owns it). */
  return (object: KubeObject): WorkloadRef => {
    let current = object;
    const seen = new Set<KubeObject>([object]);
    for (let depth = 0; depth < MAX_OWNER_DEPTH; depth++) {
      const ref = controllerOf(current.meta.ownerReferences);
      if (ref === undefined) break;
      const owner =
        (ref.uid !== '' ? byUid.get(ref.uid) : undefined) ??
        byKey.get(objectKey(ref.kind, current.meta.namespace, ref.name));
      if (owner === undefined || seen.has(owner)) {
        return { kind: ref.kind, namespace: current.meta.namespace, name: ref.name, uid: ref.uid };
      }
      seen.add(owner);
      current = owner;
    }
    return refOf(current);
  };
}

function toIso(value: string | null): string | null {
  if (value === null) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** When a pod last used its service account (see the module comment). */
export function podLastUsedAt(pod: PodObject, now: string): string {
  if (pod.phase !== 'Succeeded' && pod.phase !== 'Failed') return now;
  const ended = toIso(pod.finishedAt) ?? toIso(pod.startTime) ?? toIso(pod.meta.creationTimestamp) ?? now;
  return ended < now ? ended : now;
}

/** Usage per service account, keyed `namespace/name`. */
export function computeUsage(inventory: Inventory, now: string): Map<string, ServiceAccountUsage> {
  const topOf = createOwnerResolver([...inventory.pods, ...inventory.workloads]);
  const found = new Map<string, { workloads: Map<string, WorkloadRef>; lastUsedAt: string | null }>();
  const entry = (namespace: string, account: string) => {
    const key = `${namespace}/${account}`;
    let usage = found.get(key);
    if (usage === undefined) {
      usage = { workloads: new Map(), lastUsedAt: null };
      found.set(key, usage);
    }
    return usage;
  };
  const link = (namespace: string, account: string, workload: WorkloadRef) =>
    entry(namespace, account).workloads.set(
      objectKey(workload.kind, workload.namespace, workload.name),
      workload,
    );

  for (const pod of inventory.pods) {
    link(pod.meta.namespace, pod.serviceAccountName, topOf(pod));
    const usage = entry(pod.meta.namespace, pod.serviceAccountName);
    const used = podLastUsedAt(pod, now);
    if (usage.lastUsedAt === null || used > usage.lastUsedAt) usage.lastUsedAt = used;
  }
  for (const workload of inventory.workloads) {
    if (workload.meta.ownerReferences.length > 0) continue;
    link(workload.meta.namespace, workload.serviceAccountName, refOf(workload));
  }

  const result = new Map<string, ServiceAccountUsage>();
  for (const [key, usage] of found) {
    result.set(key, {
      workloads: sortBy(usage.workloads.values(), (w) => [w.namespace, w.kind, w.name]),
      lastUsedAt: usage.lastUsedAt,
    });
  }
  return result;
}
