/**
 * Small Kubernetes objects for the findings tests: a Deployment, its ReplicaSet and pods, and pods
 * running the image of the nginx:1.27.2 sample scan.
 */
type Json = Record<string, unknown>;

const DEPLOYMENT_UID = '4b7c63a1-0d5e-4c8f-9a51-3f0e6f1d2a10';

/** The Deployment shop/web; `privileged` toggles K8S-001, the rest of it breaks other rules. */
export function deployment({ version, privileged }: { version: string; privileged: boolean }): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: DEPLOYMENT_UID,
      resourceVersion: version,
      creationTimestamp: '2025-05-01T00:00:00Z',
    },
    spec: {
      replicas: 2,
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'nginx:latest',
              securityContext: { privileged },
            },
          ],
        },
      },
    },
  };
}

export function replicaSet(owner: Json): Json {
  const meta = owner.metadata as Json;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-5d8f',
      namespace: 'shop',
      uid: '7e1f0c2b-5a3d-4e6f-8b9a-0c1d2e3f4a5b',
      resourceVersion: '1',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: meta.name, uid: meta.uid, controller: true },
      ],
    },
    spec: (owner.spec as Json) ?? {},
  };
}

/** A running pod, owned by `owner` (a ReplicaSet) or by nothing. */
export function pod(owner: Json | null, name: string): Json {
  const meta = owner?.metadata as Json | undefined;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'shop',
      uid: `pod-${name}`,
      resourceVersion: '1',
      ...(meta
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: meta.name, uid: meta.uid, controller: true },
            ],
          }
        : {}),
    },
    spec: { containers: [{ name: 'app', image: 'nginx:latest', securityContext: { privileged: true } }] },
    status: { phase: 'Running' },
  };
}

/** The digest of the nginx:1.27.2 sample scan's image (sample/scans/nginx-1.27.2.trivy.json). */
export const NGINX_DIGEST = 'sha256:b234c7b099c1265d4927c74bb87ea754b8b674c9eed1f43f28d7a1d5e351c388';

/** A running, unowned pod of the nginx:1.27.2 sample scan's image. */
export function nginxPod(namespace: string, name: string): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, uid: `pod-${namespace}-${name}`, resourceVersion: '1' },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27.2' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'nginx',
          image: 'nginx:1.27.2',
          imageID: `docker.io/library/nginx@${NGINX_DIGEST}`,
          containerID: `containerd://${namespace}-${name}`,
        },
      ],
    },
  };
}
