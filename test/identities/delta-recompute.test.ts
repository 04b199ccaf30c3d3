/**
 * The Kubernetes ingestion recomputes only the identities a push changed (delta.ts): the stored
 * result must be what a full recompute gives, after every push of any sequence, and a push that
 * changes nothing identities read must write nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Database, Executor } from '../../src/db/database.js';
import { applyKubernetesPush } from '../../src/ingest/kubernetes/engine.js';
import { validatePush } from '../../src/modules/clusters/ingest-service.js';
import { recomputeClusterIdentities, recomputeFromDelta } from '../../src/modules/identities/recompute.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { applyOps, createModel, initialArbitrary, type Op, opArbitrary } from './delta-model.js';
import { rowVersions, type StoredState, storedState } from './delta-snapshot.js';
import { bumped, pushObjects, role, roleBinding, runningPod, serviceAccount } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

class RolledBack extends Error {}

/** Runs `work` in a transaction that is always rolled back, and returns what it read. */
async function rolledBack<T>(db: Database, work: (tx: Executor) => Promise<T>): Promise<T> {
  let result: T | undefined;
  await db
    .transaction(async (tx) => {
      result = await work(tx);
      throw new RolledBack();
    })
    .catch((error) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return result as T;
}

/** The delta never runs ahead of a full recompute's freshness, and is null exactly when it is. */
function assertFreshness(delta: StoredState, full: StoredState) {
  for (const [key, values] of full.freshness) {
    const mine = delta.freshness.get(key)!;
    values.forEach((value, i) => {
      assert.equal(mine[i] === null, value === null, `${key}: ${mine[i]} vs ${value}`);
      if (value !== null) assert.ok(Date.parse(mine[i]!) <= Date.parse(value), key);
    });
  }
}

const put = (slot: string, variant: number): Op => ({ op: 'put', slot, variant });

/** Cases random sequences reach rarely, always checked first. */
const EXAMPLES: [Op[], Op[][]][] = [
  // A pod running as sa2 under rs1 under d1 (whose template names sa2 too): rs1 dropping its
  // owner gives sa2 a second workload, rs1; rs1 itself names sa1, so only the owner chain
  // reaches sa2.
  [
    [
      put('ServiceAccount/a/sa2', 1),
      put('Deployment/a/d1', 8),
      put('ReplicaSet/a/rs1', 4),
      put('Pod/a/p1', 5),
    ],
    [[put('ReplicaSet/a/rs1', 0)]],
  ],
  // A binding of `system:serviceaccounts:a` reaches every account of the namespace.
  [
    [put('ServiceAccount/a/sa1', 1), put('ServiceAccount/a/sa2', 1), put('ClusterRole//cr1', 2)],
    [[put('RoleBinding/a/rb1', 130)], [{ op: 'delete', slot: 'RoleBinding/a/rb1', variant: 0 }]],
  ],
];

test('after every push of a random sequence, the stored identities equal a full recompute', async () => {
  const tenant = await createTenant(t);
  let clusters = 0;
  let partial = 0;
  await fc.assert(
    fc.asyncProperty(
      initialArbitrary,
      fc.array(fc.array(opArbitrary, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
      async (initial, changes) => {
        const pushes = [initial, ...changes];
        const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, `delta-${++clusters}`);
        const ref = { accountId: tenant.accountId, clusterId: cluster.id, clusterName: cluster.name };
        const model = createModel();
        let clock = Date.parse('2026-03-01T10:00:00Z');
        for (const ops of pushes) {
          const lines = applyOps(model, ops);
          if (lines.length === 0) continue;
          clock += 1000;
          const now = new Date(clock);
          const { objects } = validatePush(lines.join('\n'));
          // What the ingestion does in the push's transaction (ingest-service.ts).
          const summary = await t.db.transaction(async (tx) => {
            const { changed, written } = await applyKubernetesPush(tx, ref, objects, {
              mode: 'incremental',
              observedAt: now,
              now,
            });
            // Half the clusters take the push's new versions, their JSON and their rows, from
            // memory, as the listener does (createIdentitiesPushListener), half read every object
            // back: both must match.
            const fromMemory = clusters % 2 === 0;
            const known = fromMemory ? new Map(written.map((o) => [o.id, o.raw])) : undefined;
            const pushed = fromMemory
              ? { at: now, byUid: new Map(written.map((o) => [o.uid, o])) }
              : undefined;
            return recomputeFromDelta(tx, ref, changed, now, known, pushed);
          });
          const delta = await storedState(t.db, ref);
          const full = await rolledBack(t.db, async (tx) => {
            await recomputeClusterIdentities(tx, ref, now);
            return storedState(tx, ref);
          });
          assert.deepEqual(delta.tables, full.tables, `after ${JSON.stringify(ops)}`);
          assertFreshness(delta, full);
          const stored = delta.freshness.size;
          if (summary !== null && summary.identities > 0 && summary.identities < stored) partial += 1;
        }
      },
    ),
    { seed: 20261122, numRuns: 10, endOnFailure: true, examples: EXAMPLES },
  );
  // The property is about the delta path: most pushes must have taken it.
  assert.ok(partial >= 10, `only ${partial} pushes recomputed part of a cluster`);
});

test('a push that changes nothing identities read writes nothing; a binding change rewrites its identities only', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'delta-writes');
  const scope = { accountId: tenant.accountId, clusterId: cluster.id };
  const reader = role('shop', 'secret-reader', [{ resources: ['secrets'], verbs: ['get'] }]);
  const binding = roleBinding('shop', 'api-secrets', { kind: 'Role', name: 'secret-reader' }, [
    { kind: 'ServiceAccount', name: 'api', namespace: 'shop' },
  ]);
  const worker = runningPod('shop', 'worker-1', 'worker');
  const objects = [
    serviceAccount('shop', 'api'),
    serviceAccount('shop', 'worker'),
    serviceAccount('shop', 'batch'),
    reader,
    binding,
    runningPod('shop', 'api-1', 'api'),
    worker,
  ];
  await pushObjects(t, tenant, cluster.id, objects);
  const stored = await rowVersions(t.db, scope);
  assert.ok(stored.identities!.length === 3 && stored.identity_source_links!.length > 0);

  await pushObjects(t, tenant, cluster.id, objects);
  assert.deepEqual(await rowVersions(t.db, scope), stored, 'an identical re-push');
  await pushObjects(t, tenant, cluster.id, [
    bumped(worker, (pod) => (pod.status.startTime = '2026-01-05T00:00:00Z')),
  ]);
  assert.deepEqual(await rowVersions(t.db, scope), stored, 'a running pod whose status changed');

  const versions = async () => {
    const { rows } = await t.db.query<{ name: string; v: string }>(
      'select name, xmin::text as v from identities where account_id = $1 and cluster_id = $2',
      [scope.accountId, scope.clusterId],
    );
    return new Map(rows.map((row) => [row.name, row.v]));
  };
  const beforeChange = await versions();
  await pushObjects(t, tenant, cluster.id, [
    bumped(binding, (b) => b.subjects.push({ kind: 'ServiceAccount', name: 'batch', namespace: 'shop' })),
  ]);
  const afterChange = await versions();
  assert.notEqual(afterChange.get('api'), beforeChange.get('api'), 'api: its binding changed version');
  assert.notEqual(afterChange.get('batch'), beforeChange.get('batch'), 'batch: newly bound');
  assert.equal(afterChange.get('worker'), beforeChange.get('worker'), 'worker: untouched');
});
