/**
 * Identity and vulnerability findings follow their own ingestions: an RBAC push that makes a
 * service account cluster-admin opens an identity group, removing the binding closes it, a push
 * that changes no identity leaves the group as it was; a scan with a critical CVE of an image
 * pods run opens one vulnerability group on the image (not one per pod), a later scan without it
 * closes the group, and so does the last pod's deletion; a pod starting on an image that already
 * runs writes nothing. (Runtime findings: demo-findings.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  bumped,
  clusterRole,
  clusterRoleBinding,
  deleted,
  pushObjects,
  pushWatchEvents,
  role,
  roleBinding,
  runningPod,
  serviceAccount,
} from '../../../test/identities/support.js';
import { createCluster, type KubeJson } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { pushOk as pushScanOk, scanDoc } from '../../../test/vulnerabilities/support.js';
import { validatePush } from '../clusters/ingest-service.js';
import { loadWorkloads } from './sources.js';
import { NGINX_DIGEST, nginxPod } from './test-objects.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function groups(tenant: TestTenant, filters: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups?filters=${filters}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body as {
    id: string;
    rule_id: string;
    status: string;
    source_kind: string;
    source_type: string;
    source_name: string;
    source_namespace: string;
    last_seen: string;
    source_attrs: Record<string, unknown>;
  }[];
}

test('a cluster-admin service account opens an identity_risk group; unbinding it closes the group', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'identities');
  const binding = clusterRoleBinding('deployer-admin', 'cluster-admin', [
    { kind: 'ServiceAccount', name: 'deployer', namespace: 'ci' },
  ]);
  await pushObjects(t, tenant, cluster.id, [
    serviceAccount('ci', 'deployer'),
    clusterRole('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
    binding,
  ]);
  const [group, ...rest] = (await groups(tenant, 'type:identity_risk')).filter(
    (g) => g.source_name === 'deployer',
  );
  assert.ok(group, 'the service account has a group');
  assert.deepEqual(rest, []);
  assert.equal(group.rule_id, 'IDN-001');
  assert.equal(group.source_kind, 'k8s_service_account');
  assert.equal(group.status, 'open');

  await pushWatchEvents(t, tenant, cluster.id, [deleted(binding)]);
  const after = (await groups(tenant, 'type:identity_risk')).find((g) => g.id === group.id);
  assert.equal(after?.status, 'closed');
});

test('a push that changes no identity leaves the identity groups alone; one that changes an identity moves their last_seen', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'identities-unchanged');
  const pod = runningPod('ci', 'runner', 'deployer');
  await pushObjects(t, tenant, cluster.id, [
    serviceAccount('ci', 'deployer'),
    clusterRole('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
    clusterRoleBinding('deployer-admin', 'cluster-admin', [
      { kind: 'ServiceAccount', name: 'deployer', namespace: 'ci' },
    ]),
    pod,
  ]);
  const deployerGroup = async () => {
    const found = (await groups(tenant, 'type:identity_risk')).filter((g) => g.source_name === 'deployer');
    assert.equal(found.length, 1);
    return found[0]!;
  };
  const first = await deployerGroup();

  // The pod's new version changes a label: nothing an identity reads.
  await pushObjects(t, tenant, cluster.id, [
    bumped(pod, (copy) => {
      copy.metadata.labels = { restarted: 'yes' };
    }),
  ]);
  assert.deepEqual(await deployerGroup(), first, 'the group is left as it was');

  // A Role of the namespace bound to the account changes its permissions.
  await pushObjects(t, tenant, cluster.id, [
    role('ci', 'secrets-reader', [{ resources: ['secrets'], verbs: ['get'] }]),
    roleBinding('ci', 'deployer-secrets', { kind: 'Role', name: 'secrets-reader' }, [
      { kind: 'ServiceAccount', name: 'deployer', namespace: 'ci' },
    ]),
  ]);
  const changed = await deployerGroup();
  assert.equal(changed.id, first.id);
  assert.ok(Date.parse(changed.last_seen) > Date.parse(first.last_seen), 'the evaluation ran');
});

async function groupFindings(tenant: TestTenant, groupId: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups/${groupId}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body.findings as {
    fingerprint: string;
    updated_at: string;
    deleted_at: string | null;
    rule_attrs: { cve_name: string };
  }[];
}

test('a critical CVE of an image three pods run is one group on the image with one finding; a fixed scan, then the last pod gone, close it', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'vulnerabilities');
  const pods = [nginxPod('web', 'edge'), nginxPod('web', 'edge-2'), nginxPod('shop', 'front')];
  await pushObjects(t, tenant, cluster.id, pods);
  assert.deepEqual(await groups(tenant, 'type:vulnerability'), [], 'no scan yet');

  const account = { accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken, tenant };
  const scan = scanDoc('nginx-1.27.2.trivy.json');
  await pushScanOk(t, account, scan);
  const [group, ...rest] = await groups(tenant, 'type:vulnerability');
  assert.ok(group);
  assert.deepEqual(rest, [], 'one group for the image, not one per pod');
  assert.deepEqual(
    [
      group.rule_id,
      group.source_type,
      group.source_kind,
      group.source_name,
      group.source_namespace,
      group.status,
    ],
    ['VULN-002', 'image', 'ContainerImage', 'docker.io/library/nginx:1.27.2', '', 'open'],
  );
  assert.equal(group.source_attrs.image_digest, NGINX_DIGEST);
  const findings = await groupFindings(tenant, group.id);
  assert.deepEqual(
    findings.map((f) => f.rule_attrs.cve_name),
    ['CVE-2023-45853'],
    'one finding per CVE and package, not one per pod',
  );
  assert.deepEqual(
    await groups(tenant, 'type:vulnerability,source_namespace:web'),
    [],
    'an image group has no namespace',
  );

  // A newer scan of the same image without the critical CVE.
  const fixed = structuredClone(scan);
  fixed.CreatedAt = '2024-12-01T00:00:00Z';
  for (const result of fixed.Results ?? []) {
    result.Vulnerabilities = (result.Vulnerabilities ?? []).filter(
      (v: { Severity: string }) => v.Severity !== 'CRITICAL',
    );
  }
  await pushScanOk(t, account, fixed);
  assert.equal((await groups(tenant, 'type:vulnerability'))[0]?.status, 'closed');

  // The CVE back in a newer scan reopens it. Pods leaving while another still runs the image
  // change nothing; the last one's deletion (a Kubernetes push naming no image) closes the group.
  const regressed = structuredClone(scan);
  regressed.CreatedAt = '2024-12-02T00:00:00Z';
  await pushScanOk(t, account, regressed);
  const reopened = (await groups(tenant, 'type:vulnerability'))[0];
  assert.equal(reopened?.status, 'open');
  const before = await groupFindings(tenant, group.id);
  await pushWatchEvents(t, tenant, cluster.id, [deleted(pods[0]), deleted(pods[1])]);
  assert.deepEqual(await groups(tenant, 'type:vulnerability'), [reopened], 'the image still runs in shop');
  assert.deepEqual(await groupFindings(tenant, group.id), before);
  await pushWatchEvents(t, tenant, cluster.id, [deleted(pods[2])]);
  assert.equal((await groups(tenant, 'type:vulnerability'))[0]?.status, 'closed');
  assert.ok((await groupFindings(tenant, group.id)).every((f) => f.deleted_at !== null));
});

test('a pod starting on an image that already runs in the cluster writes no vulnerability finding', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'second-workload');
  await pushObjects(t, tenant, cluster.id, [nginxPod('web', 'edge')]);
  const account = { accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken, tenant };
  await pushScanOk(t, account, scanDoc('nginx-1.27.2.trivy.json'));
  const [group] = await groups(tenant, 'type:vulnerability');
  assert.ok(group);
  const findings = await groupFindings(tenant, group.id);
  assert.equal(findings.length, 1);

  await pushObjects(t, tenant, cluster.id, [nginxPod('shop', 'front')]);
  assert.deepEqual(await groups(tenant, 'type:vulnerability'), [group], 'the group is not even touched');
  assert.deepEqual(await groupFindings(tenant, group.id), findings, 'updated_at unchanged');

  // Which workloads run the image stays the CVE report's business: it counts the new pod.
  const report = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/reports/inventory_cves`,
    token: tenant.adminToken,
  });
  assert.equal(report.status, 200, report.text);
  const row = (report.body as { cve_name: string; affected_owner_uids: string[] }[]).find(
    (r) => r.cve_name === 'CVE-2023-45853',
  );
  assert.deepEqual(row?.affected_owner_uids, ['pod-shop-front', 'pod-web-edge']);
});

test('the workloads a push wrote, taken from memory, are the rows stored: same fields, same JSON, deleted ones absent', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'workloads-from-memory');
  const scope = { accountId: tenant.accountId, clusterId: cluster.id };
  const gone = nginxPod('shop', 'gone') as KubeJson;
  await pushObjects(t, tenant, cluster.id, [nginxPod('shop', 'api-1') as KubeJson, gone]);
  await pushWatchEvents(t, tenant, cluster.id, [deleted(gone)]);
  // The objects as a push of api-1's stored version parses them (ingest-service.ts).
  const { objects } = validatePush(
    JSON.stringify({ kind: 'List', apiVersion: 'v1', items: [nginxPod('shop', 'api-1')] }),
  );
  const uids = [...objects.map((object) => object.uid), 'pod-shop-gone', 'no-such-uid'];
  const byUid = (rows: { uid: string }[]) => [...rows].sort((a, b) => a.uid.localeCompare(b.uid));
  await t.db.transaction(async (tx) => {
    const read = await loadWorkloads(tx, scope, uids);
    const fromMemory = await loadWorkloads(tx, scope, uids, objects);
    assert.equal(read.length, 1);
    assert.deepEqual(byUid(fromMemory), byUid(read));
  });
});
