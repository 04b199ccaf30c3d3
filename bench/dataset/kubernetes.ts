/**
 * Kubernetes objects of one synthetic cluster, as `kubectl get -o json` Lists would carry them
 * (shaped like sample/cluster): the RBAC-heavy cluster of the identity engine's scale check
 * (ServiceAccounts, Roles, ClusterRoles, bindings, small Deployments) plus Deployments with a
 * ReplicaSet and `replicas` pods of two containers each, running the images the scan generator
 * reports on (so packages and CVE rows are `in_use`). Deterministic: the same size gives the same
 * objects, and `podsVersion(n)` gives the same pods with a new resourceVersion.
 */
import { syntheticCluster } from '../../src/engines/rbac/fixtures/synthetic.js';
import type { ClusterSize } from '../sizes.js';
import { digestOf } from '../vulnerability-data.js';
import { imageRef } from './scans.js';

type Json = Record<string, unknown>;

const SIDECAR = 'docker.io/envoyproxy/envoy:v1.31.2';
const CREATED = '2024-11-01T00:00:00Z';

function meta(kind: string, namespace: string, name: string, version: number, owner?: Json): Json {
  return {
    name,
    namespace,
    uid: `bench-${kind.toLowerCase()}-${namespace}-${name}`,
    resourceVersion: String(version),
    creationTimestamp: CREATED,
    labels: { app: name.replace(/-[a-z0-9]+-[a-z0-9]+$/, ''), 'app.kubernetes.io/part-of': 'bench' },
    ...(owner ? { ownerReferences: [owner] } : {}),
  };
}

const ownerRef = (kind: string, namespace: string, name: string): Json => ({
  apiVersion: 'apps/v1',
  kind,
  name,
  uid: `bench-${kind.toLowerCase()}-${namespace}-${name}`,
  controller: true,
  blockOwnerDeletion: true,
});

function containerSpecs(image: string) {
  return [
    {
      name: 'app',
      image,
      ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
      resources: { limits: { memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
      securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false },
    },
    { name: 'proxy', image: SIDECAR, resources: { requests: { cpu: '50m', memory: '64Mi' } } },
  ];
}

interface Workload {
  namespace: string;
  name: string;
  image: string;
  imageDigestLabel: string;
}

function workloads(size: ClusterSize, images: number): Workload[] {
  return Array.from({ length: size.deployments }, (_, i) => {
    const ref = imageRef(i % images);
    return {
      namespace: `team-${i % size.namespaces}`,
      name: `svc-${i}`,
      image: ref.image,
      imageDigestLabel: ref.manifestLabel,
    };
  });
}

function pod(w: Workload, replica: number, version: number, cluster: string): Json {
  const rs = `${w.name}-7d9f8c`;
  const name = `${rs}-${replica.toString(36).padStart(5, 'x')}`;
  const imageID = `${w.image.split(':')[0]}@${digestOf(w.imageDigestLabel)}`;
  const containerID = (container: string) =>
    `containerd://${digestOf(`${cluster}/${w.namespace}/${name}/${container}`).slice(7)}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta('Pod', w.namespace, name, version, ownerRef('ReplicaSet', w.namespace, rs)),
    spec: {
      serviceAccountName: 'default',
      nodeName: `node-${replica % 8}`,
      containers: containerSpecs(w.image),
    },
    status: {
      phase: 'Running',
      podIP: `10.1.${replica % 250}.${version % 250}`,
      startTime: CREATED,
      containerStatuses: [
        {
          name: 'app',
          image: w.image,
          imageID,
          containerID: containerID('app'),
          ready: true,
          restartCount: version - 1,
        },
        {
          name: 'proxy',
          image: SIDECAR,
          imageID: `docker.io/envoyproxy/envoy@${digestOf(SIDECAR)}`,
          containerID: containerID('proxy'),
          ready: true,
          restartCount: 0,
        },
      ],
    },
  };
}

function controllers(w: Workload): Json[] {
  const rs = `${w.name}-7d9f8c`;
  const template = { metadata: { labels: { app: w.name } }, spec: { containers: containerSpecs(w.image) } };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta('Deployment', w.namespace, w.name, 1),
      spec: { replicas: 0, selector: { matchLabels: { app: w.name } }, template },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: meta('ReplicaSet', w.namespace, rs, 1, ownerRef('Deployment', w.namespace, w.name)),
      spec: { selector: { matchLabels: { app: w.name } }, template },
    },
  ];
}

/** Every object of the cluster's first push: RBAC, controllers, pods at version 1. */
export function clusterObjects(size: ClusterSize, images: number, cluster: string): Json[] {
  const rbac = syntheticCluster({
    serviceAccounts: size.serviceAccounts,
    bindings: size.bindings,
    namespaces: size.namespaces,
  });
  const all = workloads(size, images);
  return [
    ...rbac,
    ...all.flatMap(controllers),
    ...all.flatMap((w) => Array.from({ length: size.replicas }, (_, r) => pod(w, r, 1, cluster))),
  ];
}

/** The cluster's pods again, at `version` (2, 3, ...): each becomes a new resource record. */
export function podsVersion(size: ClusterSize, images: number, cluster: string, version: number): Json[] {
  return workloads(size, images).flatMap((w) =>
    Array.from({ length: size.replicas }, (_, r) => pod(w, r, version, cluster)),
  );
}

/** Splits objects into `kubectl get -o json` Lists of at most `perList` items. */
export function asLists(objects: Json[], perList: number): Json[] {
  const lists: Json[] = [];
  for (let i = 0; i < objects.length; i += perList) {
    lists.push({
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: '' },
      items: objects.slice(i, i + perList),
    });
  }
  return lists;
}
