/**
 * A first bulk load keeps the findings' planner statistics in step (migration 0058,
 * docs/performance.md "Fix 57"): once an account's findings outgrow twice what the statistics
 * estimate, the Kubernetes push that stored them analyzes the findings tables under the account's
 * scan lock, so the next evaluations do not read every live finding of the account per statement.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { deployment } from '../../src/modules/findings/test-objects.js';
import { createCluster, list, push } from '../ingest/sample.js';
import { analyzedRowCount } from '../support/database.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
  // Autovacuum's own analyze would make the figures below depend on its timing.
  for (const table of ['findings', 'finding_groups']) {
    await t.db.query(`alter table ${table} set (autovacuum_enabled = false)`);
  }
});
after(() => t.close());

/** `count` privileged Deployments on `nginx:latest` in `namespace`: several findings each. */
function deployments(namespace: string, count: number) {
  return Array.from({ length: count }, (_, index) => {
    const object = deployment({ version: '1', privileged: true }) as {
      metadata: Record<string, unknown>;
    };
    const name = `web-${index}`;
    return {
      ...object,
      metadata: { ...object.metadata, name, namespace, uid: `${namespace}-${name}` },
    };
  });
}

const findingsOf = async (accountId: string) => {
  const { rows } = await t.db.query<{ n: string }>(
    'select count(*) as n from findings where account_id = $1',
    [accountId],
  );
  return Number(rows[0]!.n);
};

test('a push that leaves the findings statistics far behind the account analyzes; a small one does not', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  const pushDeployments = async (namespace: string, count: number) => {
    const res = await push(
      t,
      tenant.adminToken,
      tenant.accountId,
      cluster.id,
      list(deployments(namespace, count)),
    );
    assert.equal(res.status, 200, res.text);
  };

  // A few findings: within 500 of any estimate, so nothing is analyzed.
  await pushDeployments('small', 5);
  const few = await findingsOf(tenant.accountId);
  assert.ok(few > 5 && few < 500, `${few} findings`);
  assert.ok((await analyzedRowCount(t.db, 'findings')) <= 0, 'findings has never been analyzed');

  // Several hundred Deployments more: far past twice an estimate of a few rows.
  await pushDeployments('large', 300);
  const many = await findingsOf(tenant.accountId);
  assert.ok(many > 2 * few + 500, `${many} findings`);
  assert.equal(await analyzedRowCount(t.db, 'findings'), many, 'analyzed with the push’s own rows');
  assert.ok((await analyzedRowCount(t.db, 'finding_groups')) > 0, 'the groups analyzed with them');

  // A few more: not twice what the statistics know of.
  await pushDeployments('next', 5);
  assert.equal(await analyzedRowCount(t.db, 'findings'), many);
});
