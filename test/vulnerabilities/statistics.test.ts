/**
 * A first bulk load keeps the planner's statistics in step (migration 0017, docs/performance.md
 * "Fix 8"): once an account's findings outgrow twice what the statistics estimate, the scan push
 * that stored them analyzes the scan tables, so the next statements are not planned as if the
 * account were empty. Without it, PGlite never analyzes before its maintenance round and
 * PostgreSQL not before autovacuum's next visit.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { trivyReport } from '../../bench/vulnerability-data.js';
import { createCluster } from '../ingest/sample.js';
import { analyzedRowCount } from '../support/database.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { pushOk } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const findingsStatistics = () => analyzedRowCount(t.db, 'vulnerability_findings');

const report = (repository: string, packages: number) =>
  trivyReport({
    repository,
    tag: '1.0.0',
    packages,
    cvesPerPackage: 10,
    cveOffset: 0,
    createdAt: '2024-11-01T00:00:00Z',
  });

test('a push that leaves the statistics far behind the account analyzes; a small one does not', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  const account = { tenant, accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken };

  // 20 findings: within a scan's worth of any estimate, so nothing is analyzed.
  await pushOk(t, account, report('acme/small', 2));
  assert.ok((await findingsStatistics()) <= 0, 'the findings table has never been analyzed');

  // 800 more: 820 stored against an estimate of a few rows.
  await pushOk(t, account, report('acme/large', 80));
  assert.equal(await findingsStatistics(), 820, 'analyzed with the push’s own rows');

  // 100 more: 920 is not twice the 820 the statistics know of.
  await pushOk(t, account, report('acme/next', 10));
  assert.equal(await findingsStatistics(), 820);
});
