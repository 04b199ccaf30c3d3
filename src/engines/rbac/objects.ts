/**
 * Reads parsed Kubernetes JSON into a typed inventory. The input comes from a cluster push, so
 * nothing is trusted: a field of the wrong type reads as empty, an object without kind or name is
 * skipped with a warning, and nothing here throws.
 *
 * When the same kind/namespace/name appears more than once (two versions in one push), the one
 * with the highest resourceVersion wins, then the larger canonical JSON: the choice does not depend
 * on the order of the input, which keeps fingerprints stable.
 */
import { objectKey } from './ids.js';
import { canonicalJson, compareStrings, sortBy } from './order.js';
import type {
  BindingObject,
  ClusterRoleObject,
  Inventory,
  Json,
  KubeObject,
  LabelSelector,
  ObjectMeta,
  PodObject,
  PolicyRule,
  RoleObject,
  Subject,
  WorkloadObject,
} from './types.js';

/** Controllers whose pod template names a service account, with where the template lives. */
const WORKLOAD_TEMPLATE_PATHS: Record<string, readonly string[]> = {
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  ReplicationController: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

export const WORKLOAD_KINDS: readonly string[] = Object.keys(WORKLOAD_TEMPLATE_PATHS);

const NAMESPACED_KINDS = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'Pod', ...WORKLOAD_KINDS]);

export const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);

function stringMap(value: unknown): Record<string, string> {
  // No prototype: a label named `__proto__` or `constructor` is just a label.
  const map: Record<string, string> = Object.create(null);
  if (!isRecord(value)) return map;
  for (const [key, item] of Object.entries(value)) if (typeof item === 'string') map[key] = item;
  return map;
}

function at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const step of path) current = isRecord(current) ? current[step] : undefined;
  return current;
}

function readMeta(raw: Json): ObjectMeta {
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  return {
    name: text(metadata.name),
    namespace: text(metadata.namespace),
    uid: text(metadata.uid),
    resourceVersion: text(metadata.resourceVersion),
    creationTimestamp: text(metadata.creationTimestamp) || null,
    labels: stringMap(metadata.labels),
    ownerReferences: records(metadata.ownerReferences).map((ref) => ({
      kind: text(ref.kind),
      name: text(ref.name),
      uid: text(ref.uid),
      controller: ref.controller === true,
    })),
  };
}

export function readRule(raw: Json): PolicyRule {
  return {
    apiGroups: texts(raw.apiGroups),
    resources: texts(raw.resources),
    verbs: texts(raw.verbs),
    resourceNames: texts(raw.resourceNames),
    nonResourceURLs: texts(raw.nonResourceURLs),
  };
}

function readSelectors(raw: Json): LabelSelector[] | null {
  if (!isRecord(raw.aggregationRule)) return null;
  return records(raw.aggregationRule.clusterRoleSelectors).map((selector) => ({
    matchLabels: stringMap(selector.matchLabels),
    matchExpressions: records(selector.matchExpressions).map((expression) => ({
      key: text(expression.key),
      operator: text(expression.operator),
      values: texts(expression.values),
    })),
  }));
}

function readSubject(raw: Json): Subject {
  return {
    kind: text(raw.kind),
    name: text(raw.name),
    namespace: text(raw.namespace),
    apiGroup: text(raw.apiGroup),
  };
}

/** The service account a pod spec runs as; Kubernetes defaults it to `default`. */
function serviceAccountOf(spec: unknown): string {
  if (!isRecord(spec)) return 'default';
  return text(spec.serviceAccountName) || text(spec.serviceAccount) || 'default';
}

function latestFinish(raw: Json): string | null {
  const statuses = records(at(raw, ['status', 'containerStatuses']));
  const finished = statuses
    .map((status) => text(at(status, ['state', 'terminated', 'finishedAt'])))
    .filter((value) => value !== '' && !Number.isNaN(Date.parse(value)));
  return finished.length === 0 ? null : sortBy(finished, (value) => [new Date(value).toISOString()]).at(-1)!;
}

/** kubectl's `List` and typed lists (`PodList`, whose items carry no kind) become their items. */
function flatten(objects: readonly unknown[], warnings: string[]): Json[] {
  const flat: Json[] = [];
  const visit = (value: unknown, inheritedKind: string, depth: number): void => {
    if (!isRecord(value)) {
      warnings.push('skipped an input item that is not a JSON object');
      return;
    }
    const kind = text(value.kind) || inheritedKind;
    if (kind.endsWith('List') && Array.isArray(value.items) && depth < 3) {
      const itemKind = kind === 'List' ? '' : kind.slice(0, -'List'.length);
      for (const item of value.items) visit(item, itemKind, depth + 1);
      return;
    }
    flat.push(kind === value.kind ? value : { ...value, kind });
  };
  for (const object of objects) visit(object, '', 0);
  return flat;
}

/** Higher resourceVersion first (numerically when both are numbers), then larger canonical JSON. */
function newer(a: KubeObject, b: KubeObject): boolean {
  const va = a.meta.resourceVersion;
  const vb = b.meta.resourceVersion;
  if (va !== vb) {
    if (/^\d+$/.test(va) && /^\d+$/.test(vb)) return BigInt(va) > BigInt(vb);
    return compareStrings(va, vb) > 0;
  }
  return compareStrings(canonicalJson(a.raw), canonicalJson(b.raw)) > 0;
}

function keep<T extends KubeObject>(map: Map<string, T>, object: T): void {
  const key = objectKey(object.kind, object.meta.namespace, object.meta.name);
  const current = map.get(key);
  if (current === undefined || newer(object, current)) map.set(key, object);
}

function sorted<T extends KubeObject>(map: Map<string, T>): T[] {
  return sortBy(map.values(), (object) => [object.meta.namespace, object.meta.name, object.kind]);
}

/** Classifies the objects the engine uses; other kinds are ignored silently. */
export function readInventory(objects: readonly unknown[]): Inventory {
  const warnings: string[] = [];
  const buckets = {
    serviceAccounts: new Map<string, KubeObject>(),
    roles: new Map<string, RoleObject>(),
    clusterRoles: new Map<string, ClusterRoleObject>(),
    roleBindings: new Map<string, BindingObject>(),
    clusterRoleBindings: new Map<string, BindingObject>(),
    pods: new Map<string, PodObject>(),
    workloads: new Map<string, WorkloadObject>(),
  };
  for (const raw of flatten(objects, warnings)) {
    const kind = text(raw.kind);
    const meta = readMeta(raw);
    if (kind === '' || meta.name === '') {
      warnings.push(`skipped an object without kind or metadata.name (kind "${kind}")`);
      continue;
    }
    // A namespaced object always has a namespace when it comes from the API server; read without
    // one, a RoleBinding would look cluster-wide and overstate what it grants.
    if (meta.namespace === '' && NAMESPACED_KINDS.has(kind)) {
      warnings.push(`skipped ${kind} "${meta.name}" without metadata.namespace`);
      continue;
    }
    const base: KubeObject = { kind, meta, raw };
    const rules = () => records(raw.rules).map(readRule);
    const binding = (): BindingObject => ({
      ...base,
      roleRef: readSubject(isRecord(raw.roleRef) ? raw.roleRef : {}),
      subjects: records(raw.subjects).map(readSubject),
    });
    switch (kind) {
      case 'ServiceAccount':
        keep(buckets.serviceAccounts, base);
        break;
      case 'Role':
        keep(buckets.roles, { ...base, rules: rules() });
        break;
      case 'ClusterRole':
        keep(buckets.clusterRoles, {
          ...base,
          meta: { ...meta, namespace: '' },
          rules: rules(),
          selectors: readSelectors(raw),
        });
        break;
      case 'RoleBinding':
        keep(buckets.roleBindings, binding());
        break;
      case 'ClusterRoleBinding':
        keep(buckets.clusterRoleBindings, { ...binding(), meta: { ...meta, namespace: '' } });
        break;
      case 'Pod':
        keep(buckets.pods, {
          ...base,
          serviceAccountName: serviceAccountOf(raw.spec),
          phase: text(at(raw, ['status', 'phase'])),
          startTime: text(at(raw, ['status', 'startTime'])) || null,
          finishedAt: latestFinish(raw),
        });
        break;
      default: {
        const templatePath = WORKLOAD_TEMPLATE_PATHS[kind];
        if (templatePath !== undefined) {
          keep(buckets.workloads, { ...base, serviceAccountName: serviceAccountOf(at(raw, templatePath)) });
        }
      }
    }
  }
  return {
    serviceAccounts: sorted(buckets.serviceAccounts),
    roles: sorted(buckets.roles),
    clusterRoles: sorted(buckets.clusterRoles),
    roleBindings: sorted(buckets.roleBindings),
    clusterRoleBindings: sorted(buckets.clusterRoleBindings),
    pods: sorted(buckets.pods),
    workloads: sorted(buckets.workloads),
    warnings,
  };
}
