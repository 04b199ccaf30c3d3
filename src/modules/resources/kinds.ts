/**
 * `resource_types` names kinds. Besides the kind itself (`Deployment`), the names kubectl accepts
 * for built-in kinds work too: lower case, plural resource names and short names (`deployments`,
 * `deploy`). Anything else is taken as a kind as written (custom resources).
 */
const ALIASES: Record<string, readonly string[]> = {
  Pod: ['pods', 'po'],
  Deployment: ['deployments', 'deploy'],
  ReplicaSet: ['replicasets', 'rs'],
  StatefulSet: ['statefulsets', 'sts'],
  DaemonSet: ['daemonsets', 'ds'],
  Job: ['jobs'],
  CronJob: ['cronjobs', 'cj'],
  ReplicationController: ['replicationcontrollers', 'rc'],
  Service: ['services', 'svc'],
  ServiceAccount: ['serviceaccounts', 'sa'],
  Role: ['roles'],
  ClusterRole: ['clusterroles'],
  RoleBinding: ['rolebindings'],
  ClusterRoleBinding: ['clusterrolebindings'],
  Namespace: ['namespaces', 'ns'],
  Node: ['nodes', 'no'],
  ConfigMap: ['configmaps', 'cm'],
  Secret: ['secrets'],
  Ingress: ['ingresses', 'ing'],
  NetworkPolicy: ['networkpolicies', 'netpol'],
  PersistentVolume: ['persistentvolumes', 'pv'],
  PersistentVolumeClaim: ['persistentvolumeclaims', 'pvc'],
};

const KIND_BY_NAME = new Map<string, string>(
  Object.entries(ALIASES).flatMap(([kind, names]) => [
    [kind.toLowerCase(), kind] as const,
    ...names.map((name) => [name, kind] as const),
  ]),
);

export function kindOf(name: string): string {
  return KIND_BY_NAME.get(name.toLowerCase()) ?? name;
}
