/**
 * `q` on the identities list is counted from the name index alone (migration 0052): the index
 * carries the namespace, so the match on both columns reads no identity row. Checked by the plan
 * of the count the list runs for `q` (its clause as repository.ts writes it) on the demo tenant's
 * identities, with the sequential and bitmap scans
 * that a table this small would otherwise take turned off for the statement's transaction, and by
 * the API's total for the same phrase.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startDemoTenant } from '../../../test/support/demo.js';
import { startTestApp, type TestApp } from '../../../test/support/harness.js';
import { containsPattern } from '../../http/search.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('a searched identities count is an index-only scan of the name index, and the API counts the same', async () => {
  const { accountId, token } = await startDemoTenant(t);
  const count = `select count(*) as total from identities i
    where i.account_id = $1 and (i.name ilike $2 or i.namespace ilike $2)`;
  const params = [accountId, containsPattern('system')];
  const plan = await t.db.transaction(async (tx) => {
    await tx.query(
      `select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
    );
    const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`explain (costs off) ${count}`, params);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
  assert.match(plan, /Index Only Scan using identities_name on identities/, plan);

  const { rows } = await t.db.query<{ total: string }>(count, params);
  const counted = Number(rows[0]!.total);
  assert.ok(counted > 0, 'the demo tenant has identities in kube-system');
  const listed = await t.request({ method: 'GET', url: `/accounts/${accountId}/identities?q=system`, token });
  assert.equal(listed.status, 200);
  assert.equal(listed.body.total_count, counted);
});
