/**
 * The identities report (#18) is added up from one tally per cluster (migration 0059,
 * docs/performance.md "Fix 59"). The oracle is the report's definition: every live identity of
 * the account with its open risks, read as the owner and passed to buildIdentitiesReport. Each
 * stored tally must also be what tallyIdentities makes of its own cluster's rows, and an upgraded
 * database must count the clusters that are not pushed again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { identityReportTallies } from '../../src/db/migrations/0059-identity-report-tallies.js';
import { migrate } from '../../src/db/migrator.js';
import {
  buildIdentitiesReport,
  type IdentitiesReport,
  type IdentitiesTally,
  type ReportIdentity,
  tallyIdentities,
} from '../../src/engines/rbac/index.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { pushObjects, serviceAccount, twoClustersWithHistory } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** The account's live identities with their open risks, straight from the tables. */
async function liveIdentities(accountId: string): Promise<ReportIdentity[]> {
  const { rows: identities } = await t.db.query<{
    id: string;
    type: ReportIdentity['type'];
    source_id: string;
    risk_score: number;
    risk_level: ReportIdentity['risk_level'];
  }>(
    `select id, type, cluster_id as source_id, risk_score, risk_level
       from identities where account_id = $1 and deleted_at is null`,
    [accountId],
  );
  const { rows: risks } = await t.db.query<{ identity_id: string; type: string }>(
    'select identity_id, type from identity_risks where account_id = $1 and deleted_at is null',
    [accountId],
  );
  return identities.map(({ id, ...identity }) => ({
    ...identity,
    risks: risks.filter((risk) => risk.identity_id === id),
  }));
}

/** A report's counts: the hour is the push's and the oracle's is now, the ids are the stored row's. */
const countsOf = (
  report: Record<string, unknown>,
): Omit<IdentitiesReport, 'year' | 'month' | 'day' | 'hour'> =>
  Object.fromEntries(
    Object.entries(report).filter(
      ([key]) => !['id', 'account_id', 'created_at', 'year', 'month', 'day', 'hour'].includes(key),
    ),
  ) as Omit<IdentitiesReport, 'year' | 'month' | 'day' | 'hour'>;

async function latestReport(tenant: TestTenant) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/identities/reports/latest`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return countsOf(res.body);
}

async function expectedReport(tenant: TestTenant) {
  return countsOf({ ...buildIdentitiesReport(await liveIdentities(tenant.accountId), new Date()) });
}

async function storedTallies(accountId: string): Promise<Map<string, IdentitiesTally>> {
  const { rows } = await t.db.query<{ cluster_id: string; tally: IdentitiesTally }>(
    'select cluster_id, tally from identity_report_tallies where account_id = $1',
    [accountId],
  );
  return new Map(rows.map((row) => [row.cluster_id, row.tally]));
}

/** Sums of scores are added in another order by PostgreSQL: equal to a millionth. */
const comparable = ({ score_sum, ...tally }: IdentitiesTally) => ({
  ...tally,
  score_sum: Math.round(score_sum * 1e6) / 1e6,
});

test('the report adds up every cluster’s live identities and open risks', async () => {
  const tenant = await createTenant(t);
  const { first, second } = await twoClustersWithHistory(t, tenant);

  const report = await latestReport(tenant);
  assert.deepEqual(report, await expectedReport(tenant));
  assert.deepEqual(Object.keys(report.identity_counts_per_source).sort(), [first.id, second.id].sort());
  assert.ok(report.risks_count > 0 && report.identities_with_risks_count > 0, 'the clusters have risks');

  const identities = await liveIdentities(tenant.accountId);
  const tallies = await storedTallies(tenant.accountId);
  assert.equal(tallies.size, 2);
  for (const [clusterId, tally] of tallies) {
    const own = identities.filter((identity) => identity.source_id === clusterId);
    assert.deepEqual(comparable(tally), comparable(tallyIdentities(own)), `cluster ${clusterId}`);
  }
  // The deleted account and the resolved binding's risks count for nothing.
  const secondTally = tallies.get(second.id)!;
  assert.equal(
    secondTally.identities,
    identities.filter((identity) => identity.source_id === second.id).length,
  );
});

test('a push to one cluster leaves the other cluster’s share of the report as it was', async () => {
  const tenant = await createTenant(t);
  const { first, second } = await twoClustersWithHistory(t, tenant);
  const before = await latestReport(tenant);

  await pushObjects(t, tenant, second.id, [serviceAccount('shop', 'newcomer')]);
  const after = await latestReport(tenant);
  assert.equal(after.identities_count, before.identities_count + 1);
  assert.equal(after.identity_counts_per_source[first.id], before.identity_counts_per_source[first.id]);
  assert.equal(
    after.identity_counts_per_source[second.id],
    (before.identity_counts_per_source[second.id] ?? 0) + 1,
  );
  assert.deepEqual(after, await expectedReport(tenant));
});

test('the migration gives the clusters of an upgraded database their tallies', async () => {
  const tenant = await createTenant(t);
  const { second } = await twoClustersWithHistory(t, tenant);
  const tallies = await storedTallies(tenant.accountId);

  // A database of the previous build: no tallies. The migration runs again, as on an upgrade.
  await t.db.query('delete from identity_report_tallies where account_id = $1', [tenant.accountId]);
  await t.db.query('delete from schema_migrations where id = $1', [identityReportTallies.id]);
  assert.deepEqual(await migrate(t.db), [identityReportTallies.id]);
  const backfilled = await storedTallies(tenant.accountId);
  assert.deepEqual(
    new Map([...backfilled].map(([id, tally]) => [id, comparable(tally)])),
    new Map([...tallies].map(([id, tally]) => [id, comparable(tally)])),
  );

  // The next push to one cluster writes a report that still counts the other.
  await pushObjects(t, tenant, second.id, [serviceAccount('shop', 'after-upgrade')]);
  assert.deepEqual(await latestReport(tenant), await expectedReport(tenant));
});
