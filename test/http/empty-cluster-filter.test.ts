/**
 * An empty cluster id in `filters` (`cluster_id:`) is a malformed cluster id like any other: 400
 * naming `filters`, never a database error. (Found by the fuzzing suite: the check treated the
 * empty string as "no bad value".)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('filters=cluster_id: (empty) answers 400 on every list that filters by cluster', async () => {
  const tenant = await createTenant(t);
  for (const list of [
    'inventory_containers',
    'container_runtime_insights',
    'container_runtime_latest_baseline_fingerprints',
    'container_runtime_insights/http_requests',
  ]) {
    for (const filters of ['cluster_id:', `cluster_id:,cluster_id:${crypto.randomUUID()}`]) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${tenant.accountId}/${list}?filters=${encodeURIComponent(filters)}`,
        token: tenant.adminToken,
      });
      assert.equal(res.status, 400, `${list} ${filters}: ${res.text}`);
      assert.equal(res.body.validation_details[0].field, 'filters', list);
    }
  }
});
