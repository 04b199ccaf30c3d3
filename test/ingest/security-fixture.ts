/**
 * The objects the shared security table needs under a tenant's account: a cluster holding one
 * ingested pod, and a registry. Their ids fill `{cluster_id}`, `{resource_id}`, `{uid}` and
 * `{registry_id}` in test/security/route-table.ts.
 */
import assert from 'node:assert/strict';
import type { TestApp, TestTenant } from '../support/harness.js';
import { createCluster, push, sampleObject } from './sample.js';

export interface ClusterFixture {
  clusterId: string;
  resourceId: string;
  resourceUid: string;
  registryId: string;
}

export async function clusterFixture(t: TestApp, tenant: TestTenant): Promise<ClusterFixture> {
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'security');
  const pod = sampleObject('Pod', 'payments', 'debug-shell');
  const pushed = await push(t, tenant.adminToken, tenant.accountId, cluster.id, pod);
  assert.equal(pushed.status, 200, pushed.text);
  const registry = await t.request({
    method: 'POST',
    url: `/accounts/${tenant.accountId}/registries`,
    token: tenant.adminToken,
    body: { type: 'generic', repository_name: 'registry.example.com/security' },
  });
  assert.equal(registry.status, 201, registry.text);
  return {
    clusterId: cluster.id,
    resourceId: `${pod.metadata.uid}_${pod.metadata.resourceVersion}`,
    resourceUid: pod.metadata.uid,
    registryId: registry.body.id,
  };
}
