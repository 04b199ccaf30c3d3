/**
 * Pushes to two clusters of one account write their clusters' own rows side by side: each takes
 * its cluster's lock, stores its records and containers (their kept totals are per cluster,
 * migration 0050), and only then queues for the account's scan lock, which its listeners need
 * (docs/vulnerabilities-api.md, "What is stored"; docs/performance.md, "Fix 40"), as are their
 * misconfiguration findings ("Fix 47"). PostgreSQL only:
 * the embedded store runs one transaction at a time.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { lockScans } from '../../src/modules/vulnerabilities/scan-store.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { pushesWaitingForAdvisoryLock, waitFor } from '../support/lock-waits.js';
import { createCluster, list, push, sampleItems } from './sample.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('pushes to two clusters of one account store their own rows at once, then take turns', {
  skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL: set DATABASE_URL',
}, async () => {
  const tenant = await createTenant(t);
  const clusters = [
    await createCluster(t, tenant.adminToken, tenant.accountId, 'east'),
    await createCluster(t, tenant.adminToken, tenant.accountId, 'west'),
  ];
  const pods = sampleItems('03-pods.json').filter((item) => item.kind === 'Pod');
  let pushes: ReturnType<typeof push>[] = [];
  // The scan lock held here, as a scan push holds it: neither push can finish until this commits.
  await t.db.transaction(async (tx) => {
    await lockScans(tx, tenant.accountId);
    pushes = clusters.map((cluster) => push(t, tenant.adminToken, tenant.accountId, cluster.id, list(pods)));
    const waiting = await waitFor(() => pushesWaitingForAdvisoryLock(tx, 'inventory_containers'), 2);
    assert.equal(waiting, 2, 'both pushes wrote their containers before waiting for the scan lock');
    // And their pods' misconfiguration findings, the cluster's own (docs/performance.md, "Fix 47").
    assert.equal(await pushesWaitingForAdvisoryLock(tx, 'findings'), 2, 'both wrote their findings too');
  });
  for (const res of await Promise.all(pushes)) assert.equal(res.status, 200, res.text);

  const { rows } = await t.db.query<{ cluster_id: string; kept: number; counted: number }>(
    `select c.cluster_id, k.total::int as kept, count(*)::int as counted
         from inventory_containers c
         join cluster_list_totals k
           on k.account_id = c.account_id and k.cluster_id = c.cluster_id and k.list = 'inventory_containers'
        where c.account_id = $1
        group by c.cluster_id, k.total order by c.cluster_id`,
    [tenant.accountId],
  );
  assert.equal(rows.length, 2, 'both clusters have containers');
  for (const row of rows) assert.equal(row.kept, row.counted, `cluster ${row.cluster_id}'s kept total`);
  const page = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/inventory_containers`,
    token: tenant.adminToken,
  });
  assert.equal(page.status, 200, page.text);
  assert.equal(
    (page.body as { total_count: number }).total_count,
    rows.reduce((sum, row) => sum + row.counted, 0),
    "the list's total is the sum of its clusters'",
  );
});
