/** The demo tenant shows runtime data, pushed into its demo cluster through the real endpoint. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startDemoTenant } from '../../../test/support/demo.js';
import { startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the demo cluster has its insight, baselines, HTTP observations and the sample trusted prefixes', async () => {
  const { accountId, token } = await startDemoTenant(t);
  const get = async (url: string) =>
    (await t.request({ method: 'GET', url: `/accounts/${accountId}${url}`, token })).body;

  const [cluster] = (await get('/clusters')).entries;
  assert.equal(cluster.name, 'demo');
  const insights = await get('/container_runtime_insights');
  assert.equal(insights.total_count, 1);
  assert.equal(insights.entries[0].clusterID, cluster.id);
  assert.equal(insights.entries[0].severity, 'critical');
  assert.equal(insights.entries[0].summary.kube_meta.pod_name, 'frontend-c4q9kz6d4s-j886w');
  // The runtime sample is the sample cluster's: its insight leads to a container of the inventory.
  const containerId = insights.entries[0].summary.container_meta.container_id;
  const containers = await get(`/inventory_containers?filters=container_id:${containerId}`);
  assert.equal(containers.total_count, 1);
  assert.deepEqual(
    [containers.entries[0].name, containers.entries[0].owner_name, containers.entries[0].owner_namespace],
    ['frontend', 'frontend', 'storefront'],
  );
  assert.equal((await get('/container_runtime_latest_baseline_fingerprints')).total_count, 3);
  assert.ok((await get('/container_runtime_insights/http_requests?filters=has_pii:true')).total_count >= 3);
  const settings = await get('/runtime_settings');
  assert.deepEqual(
    settings.trusted_ip_prefixes.map((p: { cidr: string }) => p.cidr),
    ['10.0.0.0/8', '172.20.0.0/16', '198.51.100.0/28'],
  );
});
