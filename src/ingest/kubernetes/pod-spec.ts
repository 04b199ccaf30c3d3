/**
 * Where pod specs and container statuses live in Kubernetes objects, and what images they use.
 * Pod: `spec`; Deployment, ReplicaSet, StatefulSet, DaemonSet, Job: `spec.template.spec`;
 * CronJob: `spec.jobTemplate.spec.template.spec`.
 */
import { containerImage, type ImageRef, parseImageReference, stripScheme } from './image-ref.js';

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string => (typeof value === 'string' ? value : '');

export const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;
export const STATUS_LISTS = [
  'initContainerStatuses',
  'containerStatuses',
  'ephemeralContainerStatuses',
] as const;

export function podSpecOf(object: Json): Json | undefined {
  const spec = asObject(object.spec);
  if (!spec) return undefined;
  if (object.kind === 'Pod') return spec;
  const template = object.kind === 'CronJob' ? asObject(asObject(spec.jobTemplate)?.spec) : spec;
  return asObject(asObject(template?.template)?.spec);
}

/** Every image digest the object's pod spec pins or its container statuses report. */
export function imageDigestsOf(object: Json): string[] {
  const digests = new Set<string>();
  const spec = podSpecOf(object);
  for (const list of CONTAINER_LISTS) {
    for (const container of asArray(spec?.[list])) {
      const digest = parseImageReference(asString(asObject(container)?.image)).digest;
      if (digest) digests.add(digest);
    }
  }
  const status = asObject(object.status);
  for (const list of STATUS_LISTS) {
    for (const entry of asArray(status?.[list])) {
      const item = asObject(entry);
      for (const reference of [asString(item?.imageID), asString(item?.image)]) {
        const digest = reference ? parseImageReference(reference).digest : '';
        if (digest) digests.add(digest);
      }
    }
  }
  return [...digests].sort();
}

export interface PodContainer {
  name: string;
  /** the runtime's id without its `<runtime>://` prefix; '' before the container started */
  containerId: string;
  /** `containerd`, `docker`, `cri-o`, ... from the prefix; '' when unknown */
  runtime: string;
  /** the image as the spec names it */
  image: string;
  ref: ImageRef;
  startedAt: string | null;
}

const TERMINAL_PHASES = new Set(['Succeeded', 'Failed']);

/**
 * The containers of a pod that run or will run: regular containers and restartable (sidecar)
 * init containers. A pod that has finished (phase Succeeded or Failed) runs none.
 */
export function runningContainersOf(pod: Json): PodContainer[] {
  const status = asObject(pod.status);
  if (TERMINAL_PHASES.has(asString(status?.phase))) return [];
  const spec = asObject(pod.spec);
  const statuses = new Map<string, Json>();
  for (const list of ['initContainerStatuses', 'containerStatuses'] as const) {
    for (const entry of asArray(status?.[list])) {
      const item = asObject(entry);
      if (item && typeof item.name === 'string') statuses.set(item.name, item);
    }
  }
  const sidecars = asArray(spec?.initContainers).filter(
    (container) => asObject(container)?.restartPolicy === 'Always',
  );
  return [...sidecars, ...asArray(spec?.containers)].flatMap((entry) => {
    const container = asObject(entry);
    if (!container || typeof container.name !== 'string') return [];
    const state = statuses.get(container.name);
    const rawId = asString(state?.containerID);
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(rawId);
    const image = asString(container.image);
    return [
      {
        name: container.name,
        containerId: stripScheme(rawId),
        runtime: scheme?.[1] ?? '',
        image,
        ref: containerImage(image, asString(state?.image), asString(state?.imageID)),
        startedAt: asString(asObject(asObject(state?.state)?.running)?.startedAt) || null,
      },
    ];
  });
}
