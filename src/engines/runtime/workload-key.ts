/**
 * Which fingerprint an event belongs to: cluster + namespace + workload kind/name + container
 * name. The cluster is the one the push was made for (its id), not the event's informational
 * cluster name. An event without workload metadata belongs to its pod (kind `Pod`).
 *
 * @example
 *   for (const group of groupByWorkloadContainer(events, clusterId).values()) {
 *     const next = applyEvents(await load(group.id), group.events, options);
 *   }
 */
import type { RuntimeEvent } from './event-schema.js';
import type { WorkloadKey } from './state.js';

export function workloadKeyOf(event: RuntimeEvent, clusterId: string): WorkloadKey {
  const k8s = event.kubernetes;
  const named = k8s.workload_kind !== undefined && k8s.workload_name !== undefined;
  return {
    cluster: clusterId,
    namespace: k8s.namespace,
    workloadKind: named ? k8s.workload_kind! : 'Pod',
    workloadName: named ? k8s.workload_name! : k8s.pod,
    containerName: event.container.name,
  };
}

/** A readable, unique string for a key (`cluster/namespace/Kind/name/container`). */
export const workloadKeyId = (key: WorkloadKey): string =>
  [key.cluster, key.namespace, key.workloadKind, key.workloadName, key.containerName]
    .map(encodeURIComponent)
    .join('/');

export interface WorkloadGroup {
  id: string;
  key: WorkloadKey;
  events: RuntimeEvent[];
}

/** Fingerprint events (everything but http_request) grouped per workload container, in push order. */
export function groupByWorkloadContainer(
  events: readonly RuntimeEvent[],
  clusterId: string,
): Map<string, WorkloadGroup> {
  const groups = new Map<string, WorkloadGroup>();
  for (const event of events) {
    if (event.type === 'http_request') continue;
    const key = workloadKeyOf(event, clusterId);
    const id = workloadKeyId(key);
    let group = groups.get(id);
    if (!group) {
      group = { id, key, events: [] };
      groups.set(id, group);
    }
    group.events.push(event);
  }
  return groups;
}
