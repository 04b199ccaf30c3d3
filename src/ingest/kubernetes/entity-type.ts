/**
 * `entity_type` of a cluster resource record: a coarse category of its kind, so clients can tell
 * workloads from RBAC objects without knowing every kind. Kinds not listed (custom resources
 * included) are `other`.
 */
const ENTITY_TYPES: Record<string, readonly string[]> = {
  workload: [
    'Pod',
    'Deployment',
    'ReplicaSet',
    'StatefulSet',
    'DaemonSet',
    'Job',
    'CronJob',
    'ReplicationController',
  ],
  rbac: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
  service_account: ['ServiceAccount'],
  network: ['Service', 'Ingress', 'IngressClass', 'NetworkPolicy', 'Endpoints', 'EndpointSlice'],
  config: ['ConfigMap', 'Secret'],
  storage: ['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass'],
  cluster: ['Namespace', 'Node'],
  admission: ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'],
  policy: ['PodDisruptionBudget', 'ResourceQuota', 'LimitRange', 'HorizontalPodAutoscaler'],
};

const BY_KIND = new Map(
  Object.entries(ENTITY_TYPES).flatMap(([type, kinds]) => kinds.map((kind) => [kind, type] as const)),
);

export const entityTypeOf = (kind: string): string => BY_KIND.get(kind) ?? 'other';
