/**
 * A KEV import re-evaluates the findings of the CVEs it moves, in every account, without waiting
 * for the next push: a critical CVE of a running image entering the catalog moves from VULN-002
 * (critical) to VULN-001 (known exploited), and back when it leaves.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { nginxPod } from '../../src/modules/findings/test-objects.js';
import { pushObjects } from '../identities/support.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, login, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { feedBytes, pushOk as pushScanOk, scanDoc } from '../vulnerabilities/support.js';

const OPERATORS = 'kev-operators';
const CVE = 'CVE-2023-45853'; // critical, in zlib1g of the nginx:1.27.2 sample scan
const IMAGE = 'docker.io/library/nginx:1.27.2'; // the group's source: the image, not the pod

let t: TestApp;
let operatorToken: string;
before(async () => {
  t = await startTestApp({ FEED_ADMIN_TENANT: OPERATORS });
  const boot = await t.tenancy.bootstrap({ tenant: OPERATORS, account: 'ops', user: 'ops-admin' });
  operatorToken = await login(t, boot.access_key_id, boot.secret_key);
});
after(() => t.close());

/** The sample catalog, with or without the CVE of the test. */
async function importKev(withCve: boolean) {
  const catalog = JSON.parse(feedBytes('kev.json').toString('utf8'));
  catalog.catalogVersion = `${catalog.catalogVersion}-${withCve ? 'with' : 'without'}`;
  if (withCve) catalog.vulnerabilities.push({ ...catalog.vulnerabilities[0], cveID: CVE });
  catalog.count = catalog.vulnerabilities.length;
  const res = await t.request({
    method: 'POST',
    url: '/feeds/import',
    token: operatorToken,
    payload: JSON.stringify(catalog),
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(res.status, 200, res.text);
}

async function vulnerabilityGroups(tenant: TestTenant) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups?filters=type:vulnerability`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return (res.body as { rule_id: string; status: string; source_type: string; source_name: string }[])
    .map((group) => `${group.rule_id} ${group.status} ${group.source_type} ${group.source_name}`)
    .sort();
}

test('a CVE entering KEV moves to VULN-001 at the import, and back to VULN-002 when it leaves', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'kev');
  await pushObjects(t, tenant, cluster.id, [nginxPod('web', 'edge')]);
  const account = { accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken, tenant };
  await pushScanOk(t, account, scanDoc('nginx-1.27.2.trivy.json'));
  const image = `image ${IMAGE}`;
  assert.deepEqual(await vulnerabilityGroups(tenant), [`VULN-002 open ${image}`]);

  await importKev(true);
  assert.deepEqual(await vulnerabilityGroups(tenant), [`VULN-001 open ${image}`, `VULN-002 closed ${image}`]);

  await importKev(false);
  assert.deepEqual(await vulnerabilityGroups(tenant), [`VULN-001 closed ${image}`, `VULN-002 open ${image}`]);
});
