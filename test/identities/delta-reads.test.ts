/**
 * What a push's identities recompute reads (docs/performance.md, "Fix 17e"):
 *
 * - only identities that can exist are computed: an account that is pushed, named by a binding,
 *   or stored already. Pods running as an account that is none of these (a namespace's `default`
 *   account that was never pushed) reach no identity, and their push must not read every pod
 *   running as that account;
 * - a push that reaches the whole cluster computes every identity, but writes the links and
 *   rbac_objects rows of its own objects only, without deriving them again for every object.
 *
 * That the stored result stays what a full recompute gives is delta-recompute.test.ts's property.
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
  clusterRole,
  clusterRoleBinding,
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

interface Statement {
  sql: string;
  params: unknown[];
}

/** An executor that records every statement it runs. */
function recording(tx: Executor, statements: Statement[]): Executor {
  return {
    query: (sql, values) => {
      statements.push({ sql, params: [...(values ?? [])] });
      return tx.query(sql, values);
    },
    exec: (sql) => tx.exec(sql),
  };
}

/** Applies a push of these objects and recomputes its identities as ingestion does, recording the latter. */
async function recomputePush(
  ref: { accountId: string; clusterId: string; clusterName: string },
  items: unknown[],
) {
  const statements: Statement[] = [];
  const now = new Date();
  const summary = await t.db.transaction(async (tx) => {
    const { objects: parsed } = validatePush(JSON.stringify(items));
    const { changed, written } = await applyKubernetesPush(tx, ref, parsed, {
      mode: 'incremental',
      observedAt: now,
      now,
    });
    const known = new Map(written.map((o) => [o.id, o.raw]));
    return recomputeFromDelta(recording(tx, statements), ref, changed, now, known);
  });
  return { summary, statements };
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
    const { summary, statements } = await recomputePush(ref, pods);
    // usageObjects (delta-sources.ts) starts from the links of kind `uses` naming the accounts.
    const usersRead = statements.some((statement) => statement.params[2] === 'uses');
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

test('a push reaching the whole cluster writes its own links and rbac_objects rows, and derives no other', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'whole-from-delta');
  const ref = { accountId: tenant.accountId, clusterId: cluster.id, clusterName: cluster.name };
  await pushObjects(t, tenant, cluster.id, [
    ...objects,
    clusterRole('viewer', [{ resources: ['pods'], verbs: ['list'] }]),
  ]);
  const everyone = clusterRoleBinding('everyone-views', 'viewer', [
    { kind: 'Group', name: 'system:authenticated' },
  ]);
  const { summary, statements } = await recomputePush(ref, [everyone]);
  // Every identity was computed: system:authenticated reaches every account.
  const { rows } = await t.db.query<{ n: number | string }>(
    'select count(*) as n from identities where account_id = $1 and cluster_id = $2 and deleted_at is null',
    [ref.accountId, ref.clusterId],
  );
  assert.equal(summary?.identities, Number(rows[0]!.n));
  // A rebuild reads every link and every rbac_objects row of the cluster to diff them.
  const wholeReads = statements.filter(
    ({ sql, params }) =>
      /select uid, (link, key|content_hash) from (identity_source_links|rbac_objects) where/.test(sql) &&
      params.length === 2,
  );
  assert.deepEqual(wholeReads, []);
  const { rows: links } = await t.db.query<{ key: string }>(
    `select key from identity_source_links where account_id = $1 and cluster_id = $2 and uid = $3 order by key`,
    [ref.accountId, ref.clusterId, everyone.metadata.uid],
  );
  assert.deepEqual(
    links.map((link) => link.key),
    ['ClusterRole//viewer', 'Group//system:authenticated'],
  );
  const { rows: rbac } = await t.db.query(
    'select name from rbac_objects where account_id = $1 and cluster_id = $2 and uid = $3',
    [ref.accountId, ref.clusterId, everyone.metadata.uid],
  );
  assert.equal(rbac.length, 1);
});
