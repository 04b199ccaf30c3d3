/**
 * Identity and vulnerability findings follow their own ingestions: an RBAC push that makes a
 * service account cluster-admin opens an identity group, removing the binding closes it; a scan
 * with a critical CVE of an image a pod runs opens a vulnerability group on the pod, a later scan
 * without it closes the group. (Runtime findings: demo-findings.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  clusterRole,
  clusterRoleBinding,
  deleted,
  pushObjects,
  pushWatchEvents,
  serviceAccount,
} from '../../../test/identities/support.js';
import { createCluster } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { pushOk as pushScanOk, scanDoc } from '../../../test/vulnerabilities/support.js';

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
    source_name: string;
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

test('a critical CVE of a running image opens a vulnerability group on its workload; a fixed scan closes it', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'vulnerabilities');
  const digest = 'sha256:b234c7b099c1265d4927c74bb87ea754b8b674c9eed1f43f28d7a1d5e351c388';
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'edge', namespace: 'web', uid: 'pod-edge', resourceVersion: '1' },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27.2' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'nginx',
          image: 'nginx:1.27.2',
          imageID: `docker.io/library/nginx@${digest}`,
          containerID: 'containerd://abc123',
        },
      ],
    },
  };
  await pushObjects(t, tenant, cluster.id, [pod]);
  assert.deepEqual(await groups(tenant, 'type:vulnerability'), [], 'no scan yet');

  const account = { accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken, tenant };
  const scan = scanDoc('nginx-1.27.2.trivy.json');
  await pushScanOk(t, account, scan);
  const [group, ...rest] = await groups(tenant, 'type:vulnerability');
  assert.ok(group);
  assert.deepEqual(rest, []);
  assert.deepEqual(
    [group.rule_id, group.source_kind, group.source_name, group.status],
    ['VULN-002', 'Pod', 'edge', 'open'],
  );
  const detail = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups/${group.id}`,
    token: tenant.adminToken,
  });
  assert.deepEqual(
    detail.body.findings.map((f: { rule_attrs: { cve_name: string } }) => f.rule_attrs.cve_name),
    ['CVE-2023-45853'],
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

  // The CVE back in a newer scan reopens it; the pod's deletion (a Kubernetes push naming no
  // image) closes it again: the evaluation covers the images that still hold live findings.
  const regressed = structuredClone(scan);
  regressed.CreatedAt = '2024-12-02T00:00:00Z';
  await pushScanOk(t, account, regressed);
  assert.equal((await groups(tenant, 'type:vulnerability'))[0]?.status, 'open');
  await pushWatchEvents(t, tenant, cluster.id, [deleted(pod)]);
  assert.equal((await groups(tenant, 'type:vulnerability'))[0]?.status, 'closed');
});
