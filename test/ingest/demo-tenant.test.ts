import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ensureDemoTenant } from '../../src/demo/demo-tenant.js';
import { login, startTestApp, TEST_PEPPER, type TestApp } from '../support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the demo tenant of an empty store gets the sample cluster through the ingestion API, once', async () => {
  let printed = '';
  const deps = {
    db: t.db,
    pepper: TEST_PEPPER,
    baseUrl: 'http://demo',
    app: t.app,
    print: (s: string) => (printed += s),
  };
  await ensureDemoTenant(deps);
  const keyId = /access_key_id: (\S+)/.exec(printed)?.[1];
  const secret = /secret_key: +(\S+)/.exec(printed)?.[1];
  const accountId = /account_id: +(\S+)/.exec(printed)?.[1];
  assert.ok(keyId && secret && accountId, printed);
  const token = await login(t, keyId, secret);
  const get = async (url: string) => (await t.request({ method: 'GET', url, token })).body;

  const clusters = await get(`/accounts/${accountId}/clusters`);
  assert.deepEqual(
    clusters.entries.map((c: { name: string }) => c.name),
    ['demo'],
  );
  const clusterId = clusters.entries[0].id;
  assert.ok(clusters.entries[0].last_ingested_at);
  assert.ok((await get(`/accounts/${accountId}/resources`)).total_count > 100);
  assert.equal((await get(`/accounts/${accountId}/inventory_containers`)).total_count, 27);
  const deleted = await get(`/accounts/${accountId}/resources?include_history=true&page_size=1000`);
  assert.ok(deleted.entries.some((r: { deletion_source: string | null }) => r.deletion_source === 'watch'));
  const actions = await get(`/accounts/${accountId}/clusters/${clusterId}/actions`);
  assert.deepEqual(
    actions.entries.map((a: { status: string; target_pod_name: string }) => [a.status, a.target_pod_name]),
    [['Pending', 'debug-shell']],
  );

  printed = '';
  await ensureDemoTenant(deps);
  assert.equal(printed, '', 'nothing happens on a store that has a tenant');
  assert.equal((await get(`/accounts/${accountId}/clusters`)).total_count, 1);
});
