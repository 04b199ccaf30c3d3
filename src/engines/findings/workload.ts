/**
 * The parts of a workload's pod spec the misconfiguration rules read, taken from a stored
 * Kubernetes object (a Pod, or a controller's pod template). Pure: no database.
 */
import { podSpecOf } from '../../ingest/kubernetes/pod-spec.js';

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Kinds that hold a pod spec; one with a controller is judged through its controller's template. */
export const WORKLOAD_KINDS = [
  'Pod',
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
  'ReplicationController',
] as const;
export const isWorkloadKind = (kind: string): boolean => (WORKLOAD_KINDS as readonly string[]).includes(kind);

/** A stored workload object, as the evaluation loads it. */
export interface WorkloadObject {
  uid: string;
  kind: string;
  name: string;
  namespace: string;
  raw: Json;
}

export type ContainerList = 'initContainers' | 'containers' | 'ephemeralContainers';

export interface WorkloadContainer {
  list: ContainerList;
  name: string;
  image: string;
  securityContext: Json;
  resources: Json;
}

export interface PodTemplate {
  spec: Json;
  /** the pod-level securityContext ({} when absent) */
  podSecurity: Json;
  containers: WorkloadContainer[];
}

const LISTS: readonly ContainerList[] = ['initContainers', 'containers', 'ephemeralContainers'];

/** The pod template of a workload, or undefined when the object holds none (a broken object). */
export function podTemplateOf(object: WorkloadObject): PodTemplate | undefined {
  const spec = podSpecOf(object.raw);
  if (!spec) return undefined;
  const containers = LISTS.flatMap((list) =>
    asArray(spec[list]).flatMap((entry) => {
      const container = asObject(entry);
      if (!container || typeof container.name !== 'string') return [];
      return [
        {
          list,
          name: container.name,
          image: typeof container.image === 'string' ? container.image : '',
          securityContext: asObject(container.securityContext) ?? {},
          resources: asObject(container.resources) ?? {},
        },
      ];
    }),
  );
  return { spec, podSecurity: asObject(spec.securityContext) ?? {}, containers };
}

/** A container's setting, else the pod's (what Kubernetes applies for runAsUser and runAsNonRoot). */
export function effectiveSetting(template: PodTemplate, container: WorkloadContainer, key: string): unknown {
  return container.securityContext[key] ?? template.podSecurity[key];
}

/** A pod that has finished (phase Succeeded or Failed) runs nothing any more. */
export function hasFinished(object: WorkloadObject): boolean {
  const phase = asObject(object.raw.status)?.phase;
  return object.kind === 'Pod' && (phase === 'Succeeded' || phase === 'Failed');
}

export { asArray, asObject };
