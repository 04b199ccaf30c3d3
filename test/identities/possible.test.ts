/**
 * The delta recompute computes only identities that can exist: an account that is pushed, named
 * by a binding, or stored already. Pods running as an account that is none of these (a
 * namespace's `default` account that was never pushed) reach no identity, and their push must not
 * read every pod running as that account (docs/performance.md, "Fix 17").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Executor } from '../../src/db/database.js';
import { applyKubernetesPush } from '../../src/ingest/kubernetes/engine.js';
import { validatePush } from '../../src/modules/clusters/ingest-service.js';
import { possibleIdentities } from '../../src/modules/identities/possible.js';
import { recomputeFromDelta } from '../../src/modules/identities/recompute.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import {
  deleted,
  pushObjects,
  pushWatchEvents,
  role,
  roleBinding,
  runningPod,
  serviceAccount,
} from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const api = serviceAccount('shop', 'api');
const binding = roleBinding('shop', 'readers', { kind: 'Role', name: 'reader' }, [
  { kind: 'User', name: 'alice' },
  { kind: 'ServiceAccount', name: 'ghost', namespace: 'shop' },
  { kind: 'Group', name: 'devs' },
]);
const objects = [
  api,
  role('shop', 'reader', [{ resources: ['pods'], verbs: ['get'] }]),
  binding,
  runningPod('shop', 'api-1', 'api'),
  runningPod('shop', 'web-1', 'default'),
];

const ASKED = [
  'ServiceAccount/shop/api',
  'User//alice',
  'ServiceAccount/shop/ghost',
  'Group//devs',
  'ServiceAccount/shop/default',
  'User//bob',
  'Group//system:serviceaccounts:shop',
];

test('possible identities: pushed accounts, binding subjects, and whatever is stored', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'possible');
  const scope = { accountId: tenant.accountId, clusterId: cluster.id };
  await pushObjects(t, tenant, cluster.id, objects);
  const expected = ['Group//devs', 'ServiceAccount/shop/api', 'ServiceAccount/shop/ghost', 'User//alice'];
  assert.deepEqual([...(await possibleIdentities(t.db, scope, new Set(ASKED)))].sort(), expected);

  // Gone from the cluster, the four stay stored (resolved): their removal was computed.
  await pushWatchEvents(t, tenant, cluster.id, [deleted(api), deleted(binding)]);
  const { rows } = await t.db.query<{ name: string; deleted_at: Date | null }>(
    'select name, deleted_at from identities where account_id = $1 and cluster_id = $2 order by name',
    [scope.accountId, scope.clusterId],
  );
  assert.deepEqual(
    rows.map((row) => [row.name, row.deleted_at !== null]),
    [
      ['alice', true],
      ['api', true],
      ['devs', true],
      ['ghost', true],
    ],
  );
  assert.deepEqual([...(await possibleIdentities(t.db, scope, new Set(ASKED)))].sort(), expected);
});

/** An executor that records the parameters of every statement it runs. */
function recording(tx: Executor, params: unknown[][]): Executor {
  return {
    query: (sql, values) => {
      params.push([...(values ?? [])]);
      return tx.query(sql, values);
    },
    exec: (sql) => tx.exec(sql),
  };
}

test('pods running as an account that cannot exist do not read the pods running as it', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'possible-pods');
  const ref = { accountId: tenant.accountId, clusterId: cluster.id, clusterName: cluster.name };
  await pushObjects(t, tenant, cluster.id, objects);
  const stored = async () =>
    (
      await t.db.query(
        'select id, xmin::text as version from identities where account_id = $1 and cluster_id = $2 order by id',
        [ref.accountId, ref.clusterId],
      )
    ).rows;
  const before = await stored();

  const pushPods = async (pods: unknown[]) => {
    const params: unknown[][] = [];
    const now = new Date();
    const summary = await t.db.transaction(async (tx) => {
      const { objects: parsed } = validatePush(JSON.stringify(pods));
      const { changed, written } = await applyKubernetesPush(tx, ref, parsed, {
        mode: 'incremental',
        observedAt: now,
        now,
      });
      const known = new Map(written.map((o) => [o.id, o.raw]));
      return recomputeFromDelta(recording(tx, params), ref, changed, now, known);
    });
    // usageObjects (delta-sources.ts) starts from the links of kind `uses` naming the accounts.
    const usersRead = params.some((values) => values[2] === 'uses');
    return { summary, usersRead };
  };

  const ghostPods = await pushPods([
    runningPod('shop', 'web-2', 'default'),
    runningPod('shop', 'web-3', 'default'),
  ]);
  assert.equal(ghostPods.usersRead, false, 'the users of shop/default were read');
  assert.equal(ghostPods.summary?.identities, 0);
  assert.deepEqual(await stored(), before, 'no identity was written');

  // An account that exists is computed from its users, as before.
  const apiPod = await pushPods([runningPod('shop', 'api-2', 'api')]);
  assert.equal(apiPod.usersRead, true);
  assert.equal(apiPod.summary?.identities, 1);
});
