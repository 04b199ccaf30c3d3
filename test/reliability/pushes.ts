/**
 * The pushes of the fault suite: small, distinct Kubernetes Lists (ConfigMaps and a Pod, so the
 * inventory listener runs in the push transaction too), each with its own Idempotency-Key, all
 * derived from a seed so a failing run can be replayed exactly.
 */

/** mulberry32: a tiny seeded generator; the suite only needs reproducible, spread-out numbers. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of a run: FAULTS_SEED when given, else a fixed default (printed by every file). */
export function faultSeed(): number {
  const raw = process.env.FAULTS_SEED;
  return raw ? Number(raw) : 20261122;
}

export function envCount(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

export interface Push {
  index: number;
  idempotencyKey: string;
  body: string;
  /** the uids of the objects it holds: each must end up stored exactly once */
  uids: string[];
}

const CONFIG_MAPS_PER_PUSH = 5;
const CREATED = '2026-11-01T10:00:00Z';

function metadata(name: string, uid: string) {
  return { name, namespace: 'faults', uid, resourceVersion: '1', creationTimestamp: CREATED };
}

/** Push number `index` of the run `seed`: new objects only, so its first application creates them all. */
export function makePush(seed: number, index: number): Push {
  const tag = `${seed.toString(36)}-${index}`;
  const items: unknown[] = [];
  const uids: string[] = [];
  for (let n = 0; n < CONFIG_MAPS_PER_PUSH; n++) {
    const uid = `cm-${tag}-${n}`;
    uids.push(uid);
    items.push({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: metadata(`settings-${tag}-${n}`, uid),
      data: { push: String(index), item: String(n) },
    });
  }
  const podUid = `pod-${tag}`;
  uids.push(podUid);
  items.push({
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: metadata(`web-${tag}`, podUid),
    spec: { containers: [{ name: 'web', image: `registry.example/web:${index}` }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'web',
          image: `registry.example/web:${index}`,
          imageID: `registry.example/web@sha256:${index.toString(16).padStart(64, '0')}`,
          containerID: `containerd://${tag.replace(/[^a-z0-9]/g, '').padEnd(16, '0')}`,
          ready: true,
        },
      ],
    },
  });
  return {
    index,
    idempotencyKey: `faults-${tag}`,
    body: JSON.stringify({ kind: 'List', apiVersion: 'v1', items }),
    uids,
  };
}
