/**
 * computeIdentities as a whole (and prepareIdentities, its form in parts): input handling,
 * output shape, robustness and scale.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { computeIdentities, prepareIdentities } from './engine.js';
import {
  clusterRole,
  clusterRoleBinding,
  pod,
  roleBinding,
  rule,
  saSubject,
  serviceAccount,
  userSubject,
} from './fixtures/builders.js';
import { defaultCluster } from './fixtures/default-cluster.js';
import { CLUSTER_ID, compute, identityIn } from './fixtures/harness.js';
import { syntheticCluster } from './fixtures/synthetic.js';

describe('input', () => {
  test('kubectl Lists and typed lists (items without kind) are read as their items', () => {
    const result = compute([
      {
        apiVersion: 'v1',
        kind: 'List',
        items: [serviceAccount('shop', 'api'), clusterRole('r', [rule('', 'secrets', 'get')])],
      },
      {
        apiVersion: 'v1',
        kind: 'PodList',
        items: [{ metadata: { name: 'p', namespace: 'shop' }, spec: { serviceAccountName: 'api' } }],
      },
      {
        kind: 'ClusterRoleBindingList',
        items: [{ ...clusterRoleBinding('b', 'r', [saSubject('shop', 'api')]), kind: undefined }],
      },
    ]);
    const api = identityIn(result, 'sa', 'shop/api');
    assert.deepEqual([api.linked_resources, api.risk_types], [1, ['secrets_read']]);
  });

  test('two versions of one object: the highest resourceVersion wins, in either order', () => {
    const older = { ...clusterRole('r', [rule('', 'secrets', 'get')]) };
    const newer = clusterRole('r', [rule('', 'configmaps', 'get')]);
    (older.metadata as Record<string, unknown>).resourceVersion = '9';
    (newer.metadata as Record<string, unknown>).resourceVersion = '10';
    const binding = clusterRoleBinding('b', 'r', [userSubject('alice')]);
    for (const order of [
      [older, newer, binding],
      [newer, older, binding],
    ]) {
      assert.deepEqual(identityIn(compute(order), 'user', 'alice').facets.resources, ['configmaps']);
    }
  });

  test('a namespaced object without a namespace is skipped, never read as cluster-wide', () => {
    const binding = roleBinding('shop', 'b', 'r', [userSubject('alice')], 'ClusterRole');
    delete (binding.metadata as Record<string, unknown>).namespace;
    const result = compute([clusterRole('r', [rule('', 'secrets', 'get')]), binding]);
    assert.deepEqual(result.identities, []);
    assert.deepEqual(result.warnings, ['skipped RoleBinding "b" without metadata.namespace']);
  });

  test('an invalid now is a programming error', () => {
    assert.throws(
      () => computeIdentities({ clusterId: 'c', clusterName: 'c', objects: [], now: 'yesterday' }),
      RangeError,
    );
  });

  test('property: any JSON, or RBAC kinds with garbage fields, never throws and yields sorted unique ids', () => {
    const kinds = fc.constantFrom(
      'ServiceAccount',
      'Role',
      'ClusterRole',
      'RoleBinding',
      'ClusterRoleBinding',
      'Pod',
      'Deployment',
      'CronJob',
      'List',
    );
    const garbage = fc.record(
      {
        kind: kinds,
        metadata: fc.oneof(
          fc.jsonValue(),
          fc.record({
            name: fc.string(),
            namespace: fc.string(),
            labels: fc.jsonValue(),
            ownerReferences: fc.jsonValue(),
          }),
        ),
        rules: fc.jsonValue(),
        subjects: fc.oneof(
          fc.jsonValue(),
          fc.array(
            fc.record({ kind: fc.constantFrom('User', 'Group', 'ServiceAccount'), name: fc.string() }),
          ),
        ),
        roleRef: fc.jsonValue(),
        aggregationRule: fc.jsonValue(),
        spec: fc.jsonValue(),
        status: fc.jsonValue(),
        items: fc.jsonValue(),
      },
      { requiredKeys: ['kind'] },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue(), garbage), { maxLength: 12 }), (objects) => {
        const { identities } = compute(objects);
        const ids = identities.map((identity) => identity.id);
        assert.equal(new Set(ids).size, ids.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('output', () => {
  test('every identity carries the fields issue 5 needs, JSON-serializable and deterministic', () => {
    const objects = [
      ...defaultCluster(),
      serviceAccount('shop', 'api'),
      pod('shop', 'p', { serviceAccountName: 'api' }),
    ];
    const first = compute(objects);
    assert.deepEqual(JSON.parse(JSON.stringify(first)), compute(objects));
    const api = identityIn(first, 'sa', 'shop/api');
    assert.deepEqual(Object.keys(api).sort(), [
      'actions',
      'facets',
      'id',
      'last_used_at',
      'linked_resources',
      'name',
      'namespace',
      'original_id',
      'raw_rbac_objects',
      'rbac_objects',
      'rightsizeable',
      'risk_detectors',
      'risk_level',
      'risk_score',
      'risk_types',
      'risks',
      'risks_summary',
      'source_id',
      'source_name',
      'source_type',
      'type',
    ]);
    assert.match(api.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(api.risk_detectors, { rbac: { ruleset_version: '1' } });
  });

  test('rightsizeable: a wildcard grant, or an unused account something is bound to', () => {
    const result = compute([
      serviceAccount('shop', 'idle'),
      serviceAccount('shop', 'bound'),
      clusterRole('r', [rule('', 'configmaps', 'get')]),
      clusterRole('w', [rule('', 'configmaps', '*')]),
      clusterRoleBinding('b', 'r', [saSubject('shop', 'bound')]),
      clusterRoleBinding('w', 'w', [userSubject('alice')]),
    ]);
    assert.equal(identityIn(result, 'sa', 'shop/idle').rightsizeable, false);
    assert.equal(identityIn(result, 'sa', 'shop/bound').rightsizeable, true);
    assert.equal(identityIn(result, 'user', 'alice').rightsizeable, true);
  });

  test('a realistic cluster spreads over the levels, system identities included', () => {
    const result = compute([
      ...defaultCluster(),
      serviceAccount('shop', 'api'),
      pod('shop', 'api-1', { serviceAccountName: 'api' }),
      serviceAccount('shop', 'idle'),
      clusterRoleBinding('ops', 'edit', [userSubject('ops')]),
      clusterRole('secret-reader', [rule('', 'secrets', 'get')]),
      roleBinding('shop', 'peek', 'secret-reader', [saSubject('shop', 'api')], 'ClusterRole'),
    ]);
    const levels = Object.fromEntries(
      result.identities.map((identity) => [identity.name, identity.risk_level]),
    );
    assert.deepEqual(levels, {
      'system:authenticated': 'Unspecified',
      'system:masters': 'Critical',
      'system:unauthenticated': 'Unspecified',
      'replicaset-controller': 'High',
      api: 'Medium',
      idle: 'Negligible',
      ops: 'Critical',
      'system:kube-controller-manager': 'Unspecified',
    });
  });
});

test('prepared identities, computed in parts and in any order, are the whole computation', () => {
  const objects = [
    ...defaultCluster(),
    ...syntheticCluster({ serviceAccounts: 60, bindings: 120, namespaces: 4 }),
    pod('shop', 'p', { serviceAccountName: 'api' }),
  ];
  const input = {
    clusterId: CLUSTER_ID,
    clusterName: 'prod',
    objects,
    now: new Date('2025-03-01T12:00:00Z'),
  };
  const whole = computeIdentities(input);
  const prepared = prepareIdentities(input);
  assert.deepEqual(
    prepared.ids,
    whole.identities.map((identity) => identity.id),
  );
  assert.deepEqual(prepared.warnings, whole.warnings);
  const expected = (ids: readonly string[]) =>
    ids.map((id) => whole.identities.find((identity) => identity.id === id));
  // Backwards, one at a time (every identity twice), then in parts of 7: the shared state (grants,
  // graphs) carries nothing from one identity's computation into another's.
  const reversed = [...prepared.ids].reverse();
  for (const id of [...reversed, ...reversed]) assert.deepEqual(prepared.compute([id]), expected([id]));
  for (let at = 0; at < reversed.length; at += 7) {
    const part = reversed.slice(at, at + 7);
    assert.deepEqual(prepared.compute(part), expected(part));
  }
  // An id the cluster has no identity for is skipped, in the order asked.
  const [first, second] = prepared.ids as [string, string];
  assert.deepEqual(prepared.compute([second, 'not-an-identity', first]), expected([second, first]));
});

test('scale: 2,000 service accounts and 5,000 bindings are computed in one call', () => {
  // The duration is measured by bench/rbac-identities.ts, not asserted here (shared CI machines).
  const objects = syntheticCluster({ serviceAccounts: 2000, bindings: 5000, namespaces: 50 });
  assert.equal(objects.filter((object) => object.kind === 'ServiceAccount').length, 2001);
  assert.equal(objects.filter((object) => String(object.kind).endsWith('Binding')).length, 5006);
  const { identities } = computeIdentities({
    clusterId: CLUSTER_ID,
    clusterName: 'big',
    objects,
    now: new Date(),
  });
  const accounts = identities.filter((identity) => identity.type === 'k8s_service_account');
  assert.equal(accounts.length, 2001);
  assert.equal(new Set(identities.map((identity) => identity.id)).size, identities.length);
  assert.ok(
    identities.some(
      (identity) => identity.risk_types.includes('cluster_admin') && identity.type === 'k8s_service_account',
    ),
  );
  assert.ok(accounts.some((identity) => identity.facets.usage === 'unused'));
  assert.ok(accounts.some((identity) => identity.linked_resources === 1));
});
