/**
 * The values #15 offers per cluster (identity_filter_values) are what the cluster's identities
 * hold, resolved ones included. They are found by walking the account's distinct facet pairs
 * (docs/performance.md, "Fix 60"), so the oracle is the definition read directly: every facet row
 * and column value of the cluster's identities. Two clusters of one account hold different values,
 * so a pair of one cluster must not be offered for the other.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { twoClustersWithHistory } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function storedValues(accountId: string, clusterId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ facet: string; value: string; label: string }>(
    `select facet, value, label from identity_filter_values
      where account_id = $1 and cluster_id = $2 and facet <> 'identity_source'`,
    [accountId, clusterId],
  );
  return rows.map((row) => `${row.facet}=${row.value} (${row.label})`).sort();
}

/** Every value the cluster's identities hold, as the owner reads the tables. */
async function heldValues(accountId: string, clusterId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ facet: string; value: string }>(
    `select f.facet, f.value from identities i
       join identity_facets f on f.account_id = i.account_id and f.identity_id = i.id
      where i.account_id = $1 and i.cluster_id = $2
     union select 'identity_type', type from identities where account_id = $1 and cluster_id = $2
     union select 'risk_level', risk_level from identities where account_id = $1 and cluster_id = $2
     union select 'status', status from identities where account_id = $1 and cluster_id = $2
     union select 'usage', usage from identities where account_id = $1 and cluster_id = $2`,
    [accountId, clusterId],
  );
  return rows.map((row) => `${row.facet}=${row.value} (${row.value})`).sort();
}

test('each cluster offers exactly the values its identities hold, resolved ones included', async () => {
  const tenant = await createTenant(t);
  const { first, second } = await twoClustersWithHistory(t, tenant);

  for (const cluster of [first, second]) {
    const stored = await storedValues(tenant.accountId, cluster.id);
    assert.deepEqual(stored, await heldValues(tenant.accountId, cluster.id), `cluster ${cluster.id}`);
  }
  const firstValues = await storedValues(tenant.accountId, first.id);
  const secondValues = await storedValues(tenant.accountId, second.id);
  assert.ok(
    firstValues.some((value) => !secondValues.includes(value)),
    'the clusters hold different values',
  );
  assert.ok(
    secondValues.includes('status=resolved (resolved)'),
    'the resolved account still offers its status',
  );
});
