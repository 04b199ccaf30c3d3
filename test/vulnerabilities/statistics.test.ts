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

/** How many histogram bounds ANALYZE kept for a column (the owner's handle: pg_stats is filtered). */
async function histogramBounds(table: string, column: string): Promise<number> {
  const { rows } = await t.db.query<{ bounds: number }>(
    `select coalesce(array_length(histogram_bounds::text::text[], 1), 0) as bounds from pg_stats
      where schemaname = 'public' and tablename = $1 and attname = $2`,
    [table, column],
  );
  return Number(rows[0]?.bounds ?? -1);
}

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
  // The CVE rows are analyzed once the push has written its own (migration 0036): before them,
  // an account's first push was planned as if it had none.
  assert.equal(await analyzedRowCount(t.db, 'vulnerability_cves'), 820, 'the CVE rows with the push’s own');
  // A small sample is enough for the account's size (migration 0036): statistics target 10, so
  // 11 histogram bounds for 820 distinct values where the default target keeps 101.
  assert.equal(await histogramBounds('vulnerability_findings', 'cve_id'), 11);
  assert.equal(await histogramBounds('vulnerability_cves', 'id'), 11);

  // 100 more: 920 is not twice the 820 the statistics know of.
  await pushOk(t, account, report('acme/next', 10));
  assert.equal(await findingsStatistics(), 820);
  assert.equal(await analyzedRowCount(t.db, 'vulnerability_cves'), 820);
});
