/**
 * The demo tenant gets the sample scans through the ingestion endpoint, after the sample cluster,
 * so its packages show as in use; the sample feeds are loaded unless a feed is there already.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openFeed } from '../../src/ingest/feeds/read-feed.js';
import { importFeed } from '../../src/modules/vulnerabilities/feed-service.js';
import { startDemoTenant } from '../support/demo.js';
import { startTestApp, type TestApp } from '../support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the demo account has in-use packages and a CVE report enriched by the sample feeds', async () => {
  // An operator loaded a real KEV catalog before the first start: the demo must not replace it.
  const kev = {
    catalogVersion: 'real',
    vulnerabilities: [{ cveID: 'CVE-2023-45853', dateAdded: '2024-01-01' }],
  };
  await importFeed(t.db, await openFeed(Buffer.from(JSON.stringify(kev))), null);

  const { accountId, token } = await startDemoTenant(t);
  const get = async (url: string) => (await t.request({ method: 'GET', url, token })).body;

  const packages = await get(`/accounts/${accountId}/inventory_packages?limit=1000`);
  assert.ok(packages.total_count > 50);
  const inUse = packages.entries.filter((p: { in_use: boolean }) => p.in_use);
  // Every sample scan names an image the sample cluster runs.
  assert.equal(inUse.length, packages.total_count);
  const rows = await get(`/accounts/${accountId}/reports/inventory_cves`);
  const zlib = rows.find((row: { cve_name: string }) => row.cve_name === 'CVE-2023-45853');
  assert.equal(zlib.affected_images_count, 3);
  assert.ok(zlib.affected_workloads_count >= 3);
  assert.equal(zlib.epss_score, 0.01047, 'sample EPSS loaded');
  assert.equal(zlib.is_known_exploited, true, "the operator's KEV catalog kept");
  const log4shell = rows.find((row: { cve_name: string }) => row.cve_name === 'CVE-2021-44228');
  assert.equal(log4shell.is_known_exploited, false, 'not in the kept catalog');
  assert.equal(
    rows[0].affected_workloads_count,
    Math.max(...rows.map((r: { affected_workloads_count: number }) => r.affected_workloads_count)),
  );
});
