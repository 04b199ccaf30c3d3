/**
 * The demo tenant's data goes through the real ingestion pipeline, so its findings appear by
 * themselves: misconfigurations of the sample workloads, identity risks of its RBAC, critical
 * CVEs of the images it runs and the runtime drift of its sample events.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startDemoTenant } from '../../../test/support/demo.js';
import { startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Group {
  id: string;
  type: string;
  rule_id: string;
  cluster_id: string;
  source_kind: string;
  source_type: string;
  source_name: string;
  source_namespace: string;
  status: string;
}

test('the demo account has finding groups of every type, without double-reported pods', async () => {
  const { accountId, token } = await startDemoTenant(t);
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${accountId}/unified_findings/groups?limit=1000`,
    token,
  });
  assert.equal(res.status, 200, res.text);
  const groups = res.body as Group[];

  const types = new Set(groups.map((g) => g.type));
  assert.deepEqual([...types].sort(), [
    'identity_risk',
    'k8s_misconfiguration',
    'runtime_alert',
    'vulnerability',
  ]);
  const privileged = groups.filter((g) => g.rule_id === 'K8S-001' && g.status === 'open');
  assert.ok(
    privileged.some((g) => g.source_kind === 'Pod' && g.source_name === 'debug-shell'),
    'the unowned privileged pod of the sample',
  );
  const misconfigured = groups.filter((g) => g.type === 'k8s_misconfiguration');
  assert.ok(
    misconfigured.every(
      (g) => !(g.source_kind === 'Pod' && /-[a-z0-9]{10}-[a-z0-9]{5}$/.test(g.source_name)),
    ),
    'no pod of a ReplicaSet is reported itself',
  );
  assert.ok(
    misconfigured.every((g) => g.source_kind !== 'ReplicaSet'),
    'ReplicaSets of Deployments are judged through their Deployment',
  );
  const vulnerable = groups.filter((g) => g.type === 'vulnerability');
  assert.ok(
    vulnerable.every(
      (g) => g.source_type === 'image' && g.source_kind === 'ContainerImage' && g.source_namespace === '',
    ),
    'vulnerability groups are images, not the workloads running them',
  );
  const perImage = vulnerable.map((g) => `${g.cluster_id} ${g.rule_id} ${g.source_name}`);
  assert.equal(new Set(perImage).size, perImage.length, 'one group per rule and image in a cluster');
});
