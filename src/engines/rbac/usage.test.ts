/** linked_resources and last_used_at: workloads running as a service account, through owners. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pod, serviceAccount, workload } from './fixtures/builders.js';
import { compute, identityIn, NOW } from './fixtures/harness.js';

const shop = (kind: string, name: string) => ({ kind, name, namespace: 'shop' });

describe('linked resources', () => {
  test('pods count for their top controller: Pod -> ReplicaSet -> Deployment, Pod -> Job -> CronJob', () => {
    const objects = [
      serviceAccount('shop', 'api'),
      workload('Deployment', 'shop', 'web', 'api'),
      workload('ReplicaSet', 'shop', 'web-7f9', 'api', shop('Deployment', 'web')),
      pod('shop', 'web-7f9-a', { serviceAccountName: 'api', owner: shop('ReplicaSet', 'web-7f9') }),
      pod('shop', 'web-7f9-b', { serviceAccountName: 'api', owner: shop('ReplicaSet', 'web-7f9') }),
      workload('CronJob', 'shop', 'report', 'api'),
      workload('Job', 'shop', 'report-1', 'api', shop('CronJob', 'report')),
      pod('shop', 'report-1-x', {
        serviceAccountName: 'api',
        owner: shop('Job', 'report-1'),
        phase: 'Succeeded',
      }),
      pod('shop', 'debug', { serviceAccountName: 'api' }),
    ];
    const api = identityIn(compute(objects), 'sa', 'shop/api');
    assert.equal(api.linked_resources, 3);
    assert.deepEqual(
      api.facets.linked_workloads.map((w) => `${w.kind}/${w.name}`),
      ['CronJob/report', 'Deployment/web', 'Pod/debug'],
    );
    assert.equal(api.facets.usage, 'used');
  });

  test('an owner missing from the push ends the walk at its reference', () => {
    const objects = [
      serviceAccount('shop', 'api'),
      pod('shop', 'web-7f9-a', { serviceAccountName: 'api', owner: shop('ReplicaSet', 'web-7f9') }),
    ];
    const api = identityIn(compute(objects), 'sa', 'shop/api');
    assert.deepEqual(api.facets.linked_workloads, [
      { kind: 'ReplicaSet', namespace: 'shop', name: 'web-7f9', uid: 'uid-replicaset-shop-web-7f9' },
    ]);
  });

  test('pods of other namespaces with the same account name do not count', () => {
    const objects = [serviceAccount('shop', 'api'), pod('other', 'p', { serviceAccountName: 'api' })];
    const api = identityIn(compute(objects), 'sa', 'shop/api');
    assert.equal(api.linked_resources, 0);
    assert.equal(api.facets.usage, 'unused');
    assert.equal(api.last_used_at, null);
  });
});

describe('last_used_at', () => {
  test('a running (or pending) pod uses its account now', () => {
    for (const phase of ['Running', 'Pending']) {
      const objects = [serviceAccount('shop', 'api'), pod('shop', 'p', { serviceAccountName: 'api', phase })];
      assert.equal(identityIn(compute(objects), 'sa', 'shop/api').last_used_at, NOW, phase);
    }
  });

  test('finished pods used it until their last container finished, else since their start', () => {
    const objects = [
      serviceAccount('shop', 'api'),
      pod('shop', 'a', { serviceAccountName: 'api', phase: 'Succeeded', finishedAt: '2025-02-01T10:00:00Z' }),
      pod('shop', 'b', { serviceAccountName: 'api', phase: 'Failed', startTime: '2025-02-03T08:00:00Z' }),
      pod('shop', 'c', { serviceAccountName: 'api', phase: 'Succeeded' }),
    ];
    assert.equal(identityIn(compute(objects), 'sa', 'shop/api').last_used_at, '2025-02-03T08:00:00.000Z');
  });

  test('a timestamp in the future (clock skew) is capped at now', () => {
    const objects = [
      serviceAccount('shop', 'api'),
      pod('shop', 'a', { serviceAccountName: 'api', phase: 'Succeeded', finishedAt: '2030-01-01T00:00:00Z' }),
    ];
    assert.equal(identityIn(compute(objects), 'sa', 'shop/api').last_used_at, NOW);
  });

  test('a workload scaled to zero links the account but does not use it', () => {
    const objects = [serviceAccount('shop', 'api'), workload('StatefulSet', 'shop', 'db', 'api')];
    const api = identityIn(compute(objects), 'sa', 'shop/api');
    assert.deepEqual([api.linked_resources, api.last_used_at], [1, null]);
  });

  test('users and groups have no usage the engine can see', () => {
    const result = compute([
      {
        kind: 'ClusterRoleBinding',
        metadata: { name: 'b' },
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
    ]);
    const alice = identityIn(result, 'user', 'alice');
    assert.deepEqual([alice.linked_resources, alice.last_used_at, alice.facets.usage], [0, null, 'unknown']);
  });
});
