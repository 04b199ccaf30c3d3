/**
 * A full recompute brings the cluster's identity_source_links in line with its live objects by
 * writing only the difference: stale links go, missing ones come back, and the links that were
 * already right are not rewritten (a push of bindings that falls back to the whole cluster used
 * to delete and insert every pod's links).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { recomputeClusterIdentities } from '../../src/modules/identities/recompute.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { pushObjects, role, roleBinding, runningPod, serviceAccount } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface LinkRow {
  uid: string;
  link: string;
  key: string;
  version: string;
}

const id = (row: { uid: string; link: string; key: string }) => `${row.uid} ${row.link} ${row.key}`;

test('a full recompute deletes stale links, restores missing ones and leaves the others unwritten', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'links-diff');
  const scope = { accountId: tenant.accountId, clusterId: cluster.id };
  await pushObjects(t, tenant, cluster.id, [
    serviceAccount('shop', 'api'),
    role('shop', 'secret-reader', [{ resources: ['secrets'], verbs: ['get'] }]),
    roleBinding('shop', 'api-secrets', { kind: 'Role', name: 'secret-reader' }, [
      { kind: 'ServiceAccount', name: 'api', namespace: 'shop' },
    ]),
    runningPod('shop', 'api-1', 'api'),
  ]);
  const links = async () =>
    (
      await t.db.query<LinkRow>(
        `select uid, link, key, xmin::text as version from identity_source_links
          where account_id = $1 and cluster_id = $2`,
        [scope.accountId, scope.clusterId],
      )
    ).rows;
  const original = await links();
  const removed = original.find((row) => row.link === 'uses');
  assert.ok(removed, 'the pod runs as api');
  assert.ok(original.length >= 5, JSON.stringify(original));

  // Damage the links: one missing, one left behind by an object that no longer exists.
  await t.db.query(
    'delete from identity_source_links where account_id = $1 and cluster_id = $2 and uid = $3 and link = $4 and key = $5',
    [scope.accountId, scope.clusterId, removed.uid, removed.link, removed.key],
  );
  await t.db.query(
    `insert into identity_source_links (account_id, cluster_id, uid, link, key)
     values ($1, $2, 'gone-uid', 'uses', 'ServiceAccount/shop/api')`,
    [scope.accountId, scope.clusterId],
  );

  await t.db.transaction((tx) =>
    recomputeClusterIdentities(tx, { ...scope, clusterName: cluster.name }, new Date(), {
      rbacChanged: false,
    }),
  );

  const rebuilt = await links();
  assert.deepEqual(rebuilt.map(id).sort(), original.map(id).sort(), 'the links of the live objects, no more');
  const versionOf = new Map(rebuilt.map((row) => [id(row), row.version]));
  for (const row of original) {
    if (row === removed)
      assert.notEqual(versionOf.get(id(row)), row.version, 'the missing link is written again');
    else assert.equal(versionOf.get(id(row)), row.version, `${id(row)} is not rewritten`);
  }
});
