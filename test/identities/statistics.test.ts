/**
 * A first bulk load keeps the identities' planner statistics in step (migration 0019,
 * docs/performance.md "Fix 9"): once an account's identities outgrow twice what the statistics
 * estimate, the Kubernetes push that stored them analyzes the identities tables, so its filter
 * values' refresh is not planned as if the account were empty.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCluster, list, push } from '../ingest/sample.js';
import { analyzedRowCount } from '../support/database.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { serviceAccount } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
  // Autovacuum's own analyze would make the figures below depend on its timing.
  for (const table of ['identities', 'identity_facets', 'identity_risks', 'identity_source_links']) {
    await t.db.query(`alter table ${table} set (autovacuum_enabled = false)`);
  }
});
after(() => t.close());

const identitiesStatistics = () => analyzedRowCount(t.db, 'identities');

const serviceAccounts = (namespace: string, count: number) =>
  list(Array.from({ length: count }, (_, index) => serviceAccount(namespace, `sa-${index}`)));

test('a push that leaves the statistics far behind the account analyzes; a small one does not', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  const pushAccounts = async (namespace: string, count: number) => {
    const res = await push(
      t,
      tenant.adminToken,
      tenant.accountId,
      cluster.id,
      serviceAccounts(namespace, count),
    );
    assert.equal(res.status, 200, res.text);
  };

  // 20 identities: within 500 of any estimate, so nothing is analyzed.
  await pushAccounts('small', 20);
  assert.ok((await identitiesStatistics()) <= 0, 'identities has never been analyzed');

  // 800 more: 820 stored against an estimate of a few rows.
  await pushAccounts('large', 800);
  assert.equal(await identitiesStatistics(), 820, 'analyzed with the push’s own rows');

  // 100 more: 920 is not twice the 820 the statistics know of.
  await pushAccounts('next', 100);
  assert.equal(await identitiesStatistics(), 820);
});
