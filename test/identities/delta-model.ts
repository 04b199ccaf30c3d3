/**
 * A small random Kubernetes cluster for the delta recompute's property test: a fixed set of
 * object slots (two namespaces of ServiceAccounts, Roles, bindings, pods, a ReplicaSet and a
 * Deployment; ClusterRoles, one of them aggregating; ClusterRoleBindings), and pushes that
 * create, change, touch (new resourceVersion, same content) or delete them. Bindings name
 * accounts, users, groups and Kubernetes' own groups, so every path of delta.ts is reached.
 *
 * @example
 *   const model = createModel();
 *   const lines = applyOps(model, [{ op: 'put', slot: 'RoleBinding/a/rb1', variant: 7 }]);
 */
import fc from 'fast-check';
import type { KubeJson } from '../ingest/sample.js';

type Json = KubeJson;
const RBAC = 'rbac.authorization.k8s.io';

const NAMESPACES = ['a', 'b'] as const;
const SLOTS = [
  ...NAMESPACES.flatMap((ns) => [
    `ServiceAccount/${ns}/sa1`,
    `ServiceAccount/${ns}/sa2`,
    `Role/${ns}/r1`,
    `RoleBinding/${ns}/rb1`,
    `RoleBinding/${ns}/rb2`,
    // Owners first: a push of every slot references the uids of owners created before.
    `Deployment/${ns}/d1`,
    `ReplicaSet/${ns}/rs1`,
    `Pod/${ns}/p1`,
    `Pod/${ns}/p2`,
  ]),
  'ClusterRole//cr1',
  'ClusterRole//cr2',
  'ClusterRole//agg',
  'ClusterRoleBinding//crb1',
  'ClusterRoleBinding//crb2',
];

const RULES: Json[][] = [
  [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
  [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
  [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] }],
  [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }],
  [],
];

const subjectsOf = (namespace: string): Json[] => [
  { kind: 'ServiceAccount', name: 'sa1', namespace },
  { kind: 'ServiceAccount', name: 'sa2', namespace },
  { kind: 'ServiceAccount', name: 'sa1', namespace: namespace === 'a' ? 'b' : 'a' },
  { kind: 'User', apiGroup: RBAC, name: 'alice' },
  { kind: 'Group', apiGroup: RBAC, name: 'devs' },
  { kind: 'Group', apiGroup: RBAC, name: `system:serviceaccounts:${namespace}` },
  { kind: 'User', apiGroup: RBAC, name: `system:serviceaccount:${namespace}:sa2` },
  { kind: 'Group', apiGroup: RBAC, name: 'system:unauthenticated' },
];

export type Op = { op: 'put' | 'touch' | 'delete'; slot: string; variant: number };

export const opArbitrary: fc.Arbitrary<Op> = fc.record({
  op: fc.constantFrom('put', 'put', 'touch', 'delete') as fc.Arbitrary<Op['op']>,
  slot: fc.constantFrom(...SLOTS),
  variant: fc.nat(4095),
});

export interface Model {
  objects: Map<string, Json>;
  version: number;
  uids: number;
}

export const createModel = (): Model => ({ objects: new Map(), version: 100, uids: 0 });

/** A first push holding most slots (a variant divisible by 5 leaves its slot empty). */
export const initialArbitrary: fc.Arbitrary<Op[]> = fc
  .array(fc.nat(4095), { minLength: SLOTS.length, maxLength: SLOTS.length })
  .map((variants) =>
    SLOTS.flatMap((slot, i) =>
      variants[i]! % 5 === 0 ? [] : [{ op: 'put' as const, slot, variant: variants[i]! }],
    ),
  );

const pick = <T>(items: readonly T[], n: number): T => items[n % items.length]!;

function body(model: Model, slot: string, variant: number): Json {
  const [kind, namespace, name] = slot.split('/') as [string, string, string];
  const bit = (i: number) => (variant >> i) & 1;
  const uidOf = (other: string) =>
    model.objects.get(other)?.metadata.uid ?? `missing-${other.replace(/\//g, '-')}`;
  switch (kind) {
    case 'ServiceAccount':
      return {};
    case 'Role':
      return { rules: pick(RULES, variant) };
    case 'ClusterRole':
      if (name === 'agg') {
        return {
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] },
          rules: bit(3) ? pick(RULES, variant) : [],
        };
      }
      return { labels: bit(3) ? { agg: 'true' } : undefined, rules: pick(RULES, variant) };
    case 'RoleBinding':
    case 'ClusterRoleBinding': {
      const refs =
        kind === 'RoleBinding'
          ? [
              { kind: 'Role', name: 'r1' },
              { kind: 'ClusterRole', name: 'cr1' },
              { kind: 'ClusterRole', name: 'agg' },
            ]
          : [
              { kind: 'ClusterRole', name: 'cr1' },
              { kind: 'ClusterRole', name: 'cr2' },
              { kind: 'ClusterRole', name: 'agg' },
            ];
      const all = subjectsOf(namespace || 'a');
      const subjects = all.filter((_, i) => (variant >> (i + 2)) & 1);
      // Rarely, the group every account is in: the delta falls back to the whole cluster.
      if (variant % 97 === 0) subjects.push({ kind: 'Group', apiGroup: RBAC, name: 'system:authenticated' });
      return { roleRef: { apiGroup: RBAC, ...pick(refs, variant) }, subjects };
    }
    case 'Pod': {
      const owner = bit(2)
        ? [{ kind: 'ReplicaSet', name: 'rs1', uid: uidOf(`ReplicaSet/${namespace}/rs1`), controller: true }]
        : [];
      const finished = bit(3);
      return {
        ownerReferences: owner,
        spec: bit(4) ? {} : { serviceAccountName: pick(['sa1', 'sa2'], variant) },
        status: finished
          ? {
              phase: 'Succeeded',
              containerStatuses: [
                { name: 'c', state: { terminated: { finishedAt: '2026-01-03T00:00:00Z' } } },
              ],
            }
          : { phase: 'Running' },
      };
    }
    default: {
      const owner =
        kind === 'ReplicaSet' && bit(2)
          ? [{ kind: 'Deployment', name: 'd1', uid: uidOf(`Deployment/${namespace}/d1`), controller: true }]
          : [];
      return { ownerReferences: owner, template: pick(['sa1', 'sa2'], variant >> 3) };
    }
  }
}

function materialize(slot: string, uid: string, version: number, content: Json): Json {
  const [kind, namespace, name] = slot.split('/') as [string, string, string];
  const { labels, ownerReferences, template, ...rest } = content;
  const metadata: Json = {
    name,
    uid,
    resourceVersion: String(version),
    creationTimestamp: '2026-01-02T03:04:05Z',
    ...(namespace ? { namespace } : {}),
    ...(labels ? { labels } : {}),
    ...(ownerReferences?.length ? { ownerReferences } : {}),
  };
  const apiVersion = kind.includes('Role')
    ? `${RBAC}/v1`
    : kind === 'ReplicaSet' || kind === 'Deployment'
      ? 'apps/v1'
      : 'v1';
  const object: Json = { apiVersion, kind, metadata, ...rest };
  if (template !== undefined) {
    object.spec = {
      template: { spec: { serviceAccountName: template, containers: [{ name: 'c', image: 'nginx:1' }] } },
    };
  }
  if (kind === 'Pod') object.spec = { ...object.spec, containers: [{ name: 'c', image: 'nginx:1' }] };
  return object;
}

/** Applies the ops to the model; returns the watch-event lines of the push. */
export function applyOps(model: Model, ops: readonly Op[]): string[] {
  const lines: string[] = [];
  for (const { op, slot, variant } of ops) {
    const current = model.objects.get(slot);
    model.version += 1;
    if (op === 'delete') {
      if (current === undefined) continue;
      const gone = { ...current, metadata: { ...current.metadata, resourceVersion: String(model.version) } };
      model.objects.delete(slot);
      lines.push(JSON.stringify({ type: 'DELETED', object: gone }));
      continue;
    }
    if (op === 'touch' && current !== undefined) {
      const next = { ...current, metadata: { ...current.metadata, resourceVersion: String(model.version) } };
      model.objects.set(slot, next);
      lines.push(JSON.stringify({ type: 'MODIFIED', object: next }));
      continue;
    }
    const uid = current?.metadata.uid ?? `uid-${slot.replace(/\//g, '-')}-${++model.uids}`;
    const next = materialize(slot, uid, model.version, body(model, slot, variant));
    model.objects.set(slot, next);
    lines.push(JSON.stringify({ type: current ? 'MODIFIED' : 'ADDED', object: next }));
  }
  return lines;
}
