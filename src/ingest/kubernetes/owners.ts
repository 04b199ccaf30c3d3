/**
 * The top controller of a pod, followed through controller ownerReferences (Pod -> ReplicaSet ->
 * Deployment, Pod -> Job -> CronJob). A link whose object Posture has not seen yet ends the walk
 * with what the reference names (kind, name, uid; no resource version); the inventory is
 * re-resolved when that object arrives. A pod without a controller is its own owner.
 */
import type { OwnerRef } from './object.js';

export interface OwnerNode {
  uid: string;
  /** record id of the object's latest version */
  id: string;
  kind: string;
  name: string;
  namespace: string;
  resourceVersion: string;
  owner: OwnerRef | null;
}

export interface ResolvedOwner {
  uid: string;
  id: string;
  kind: string;
  name: string;
  namespace: string;
  resourceVersion: string;
}

/** Guards against ownerReference cycles, which a broken or hostile push could contain. */
export const MAX_OWNER_DEPTH = 8;

/** Kinds that are cluster-scoped and may own pods (mirror pods of static pods name their Node). */
const CLUSTER_SCOPED_OWNERS = new Set(['Node']);

export function resolveTopOwner(
  pod: ResolvedOwner,
  start: OwnerRef | null,
  nodes: ReadonlyMap<string, OwnerNode>,
): ResolvedOwner {
  if (!start) return pod;
  let reference = start;
  for (let depth = 0; depth < MAX_OWNER_DEPTH; depth++) {
    const node = nodes.get(reference.uid);
    if (!node) {
      return {
        uid: reference.uid,
        id: '',
        kind: reference.kind,
        name: reference.name,
        namespace: CLUSTER_SCOPED_OWNERS.has(reference.kind) ? '' : pod.namespace,
        resourceVersion: '',
      };
    }
    if (!node.owner || node.owner.uid === node.uid || depth === MAX_OWNER_DEPTH - 1) {
      const { owner: _owner, ...resolved } = node;
      return resolved;
    }
    reference = node.owner;
  }
  return pod; // not reached: the loop returns at its last step
}
