/**
 * Scenarios: what the reports say follows the cluster and the scans on the next read. A pod dies,
 * comes back, changes image; a deployment's replicas come and go; an image is rebuilt and
 * rescanned. Nothing is recomputed by hand in between: only pushes through the real endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type KubeJson, push, sampleObject } from '../ingest/sample.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { type Account, cveReport, findRow, packages, pushOk, sampleAccount, scanDoc } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

let version = 500_000;
/** A watch event for an object, with a resourceVersion newer than any before it. */
function event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeJson) {
  object.metadata.resourceVersion = String(++version);
  return `${JSON.stringify({ type, object })}\n`;
}

async function pushEvents(account: Account, ...events: string[]) {
  const res = await push(t, account.token, account.accountId, account.clusterId, events.join(''), {
    headers: { 'content-type': 'application/x-ndjson' },
  });
  assert.equal(res.status, 200, res.text);
}

const runcRow = async (account: Account) =>
  findRow(await cveReport(t, account), 'GHSA-xr7r-f8xq-vfvv', 'github.com/opencontainers/runc');
const zlibRow = async (account: Account) => findRow(await cveReport(t, account), 'CVE-2023-45853', 'zlib1g');
const redisStatefulSet = '2da786bd-d8f6-57c7-a351-ca663944eba9';

test('a pod dies: in_use and the affected counts drop; a new pod brings them back', async () => {
  const account = await sampleAccount(t);
  const before = await runcRow(account);
  assert.equal(before.in_use, true);
  assert.equal(before.affected_workloads_count, 1);
  assert.deepEqual(before.affected_owner_uids, [redisStatefulSet]);
  const zlibBefore = await zlibRow(account);
  assert.ok(zlibBefore.affected_owner_uids.includes(redisStatefulSet));
  // libsystemd0 252.22-1~deb12u1 is in the redis scan only.
  const redisOnly = (await packages(t, account, '&filters=name:libsystemd0,version:252.22-1~deb12u1'))[0];
  assert.equal(redisOnly.in_use, true);

  const pod = sampleObject('Pod', 'storefront', 'redis-0');
  await pushEvents(account, event('DELETED', structuredClone(pod)));
  const gone = await runcRow(account);
  assert.equal(gone.in_use, false);
  assert.equal(gone.affected_workloads_count, 0);
  assert.equal(gone.affected_clusters_count, 0);
  assert.deepEqual(gone.affected_owner_uids, []);
  assert.equal(gone.affected_images_count, 1, 'the scan is still there');
  const zlibAfter = await zlibRow(account);
  assert.equal(zlibAfter.affected_workloads_count, zlibBefore.affected_workloads_count - 1);
  assert.ok(!zlibAfter.affected_owner_uids.includes(redisStatefulSet));
  assert.equal(
    (await packages(t, account, '&filters=name:libsystemd0,version:252.22-1~deb12u1'))[0].in_use,
    false,
  );
  const idle = await cveReport(t, account, '?filters=in_use:false');
  assert.ok(idle.some((row) => row.cve_name === 'GHSA-xr7r-f8xq-vfvv'));

  // The StatefulSet recreates redis-0: a new pod (new uid) running the same image.
  const reborn = structuredClone(pod);
  reborn.metadata.uid = '4b395a03-9763-5a11-8316-000000000001';
  await pushEvents(account, event('ADDED', reborn));
  const back = await runcRow(account);
  assert.equal(back.in_use, true);
  assert.deepEqual(back.affected_owner_uids, [redisStatefulSet]);
});

test('replicas of one deployment count as one workload; the last one leaving ends it', async () => {
  const account = await sampleAccount(t, { scans: ['nginx-1.27.2.trivy.json'] });
  const row = await zlibRow(account);
  assert.equal(row.affected_workloads_count, 1, 'three web pods, one Deployment');
  const webPods = ['web-jhhqgp67hf-jql9v', 'web-jhhqgp67hf-mq5z9', 'web-jhhqgp67hf-pp65t'];
  for (const [index, name] of webPods.entries()) {
    await pushEvents(account, event('DELETED', sampleObject('Pod', 'storefront', name)));
    const after = await zlibRow(account);
    const last = index === webPods.length - 1;
    assert.equal(after.affected_workloads_count, last ? 0 : 1, name);
    assert.equal(after.in_use, !last, name);
  }
});

test('a pod moved to another image: usage follows the digest', async () => {
  const account = await sampleAccount(t, { scans: ['busybox-latest.cdx.json', 'nginx-1.27.2.trivy.json'] });
  const busyboxPackage = async () => (await packages(t, account, '&filters=name:busybox'))[0];
  assert.equal((await busyboxPackage()).in_use, true);
  // debug-shell now runs nginx (same digest as the web pods): busybox is no longer in use.
  const shell = sampleObject('Pod', 'payments', 'debug-shell');
  const nginxImage =
    'docker.io/library/nginx@sha256:b234c7b099c1265d4927c74bb87ea754b8b674c9eed1f43f28d7a1d5e351c388';
  shell.spec.containers[0].image = 'nginx:1.27.2';
  shell.status.containerStatuses[0].image = 'docker.io/library/nginx:1.27.2';
  shell.status.containerStatuses[0].imageID = nginxImage;
  await pushEvents(account, event('MODIFIED', shell));
  assert.equal((await busyboxPackage()).in_use, false);
  const zlib = await zlibRow(account);
  assert.equal(zlib.affected_workloads_count, 2, 'the web Deployment and the debug-shell pod');
  assert.ok(zlib.affected_owner_uids.includes(shell.metadata.uid));
});

test('an image rebuilt and rescanned: the old build stays reported but idle, the new one is in use', async () => {
  const account = await sampleAccount(t, { scans: ['nginx-1.27.2.trivy.json'] });
  const rebuilt = `sha256:${'12'.repeat(32)}`;
  const scan = scanDoc('nginx-1.27.2.trivy.json');
  scan.CreatedAt = '2024-12-01T00:00:00Z';
  scan.Metadata.RepoDigests = [`nginx@${rebuilt}`];
  scan.Metadata.ImageID = `sha256:${'34'.repeat(32)}`;
  // The rebuild fixed zlib and brought a new finding.
  const result = scan.Results[0];
  result.Vulnerabilities = result.Vulnerabilities.filter((v: { PkgName: string }) => v.PkgName !== 'zlib1g');
  result.Vulnerabilities.push({
    VulnerabilityID: 'CVE-2024-99999',
    PkgName: 'nginx',
    InstalledVersion:
      result.Vulnerabilities.find((v: { PkgName: string }) => v.PkgName === 'nginx')?.InstalledVersion ??
      '1.27.2-1~bookworm',
    FixedVersion: '1.27.3-1~bookworm',
    Severity: 'CRITICAL',
  });
  assert.equal((await pushOk(t, account, scan)).outcome, 'created', 'a new digest is a new image');

  let rows = await cveReport(t, account);
  assert.equal(findRow(rows, 'CVE-2023-45853', 'zlib1g').in_use, true, 'the running build still has it');
  assert.equal(findRow(rows, 'CVE-2024-99999', 'nginx').in_use, false, 'the rebuild runs nowhere yet');

  // Roll the web pods to the rebuilt digest.
  const webPods = ['web-jhhqgp67hf-jql9v', 'web-jhhqgp67hf-mq5z9', 'web-jhhqgp67hf-pp65t'];
  const events = webPods.map((name) => {
    const pod = sampleObject('Pod', 'storefront', name);
    pod.status.containerStatuses[0].imageID = `docker.io/library/nginx@${rebuilt}`;
    return event('MODIFIED', pod);
  });
  await pushEvents(account, ...events);
  rows = await cveReport(t, account);
  const zlib = findRow(rows, 'CVE-2023-45853', 'zlib1g');
  assert.equal(zlib.in_use, false);
  assert.equal(zlib.affected_workloads_count, 0);
  const fresh = findRow(rows, 'CVE-2024-99999', 'nginx');
  assert.equal(fresh.in_use, true);
  assert.equal(fresh.affected_workloads_count, 1);
  assert.equal(fresh.severity, 'critical');
  assert.equal(fresh.fixed_in_version, '1.27.3-1~bookworm');
});
