/**
 * Per-rule tests, part 1: cluster-admin, wildcards, secrets, pod exec/attach/port-forward and
 * workload creation. Each rule gets permissions that must trigger it and near misses that must
 * not, with cluster-wide vs namespaced scope and resourceNames.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  clusterRole,
  clusterRoleBinding,
  role,
  roleBinding,
  rule,
  userSubject,
} from './fixtures/builders.js';
import {
  clusterGrant,
  clusterRoleInNamespace,
  namespaceGrant,
  oneRisk,
  risksFor,
} from './fixtures/harness.js';

describe('cluster_admin', () => {
  test('a ClusterRoleBinding to cluster-admin triggers it at full weight, even if the role was not pushed', () => {
    const risk = oneRisk(
      [clusterRoleBinding('ops-admin', 'cluster-admin', [userSubject('alice')])],
      'user',
      'alice',
      'cluster_admin',
    );
    assert.equal(risk.score, 10);
    assert.equal(risk.severity, 'critical');
    assert.equal(risk.namespace, '');
    assert.deepEqual(
      risk.associated_resources.map((resource) => resource.name),
      ['ClusterRole/cluster-admin', 'ClusterRoleBinding/ops-admin'],
    );
  });

  test('any role holding * on * in every API group triggers it, whatever its name', () => {
    assert.equal(oneRisk(clusterGrant([rule('*', '*', '*')]), 'user', 'alice', 'cluster_admin').score, 10);
  });

  test('a RoleBinding to cluster-admin makes a namespace admin: same risk, half the score', () => {
    const risk = oneRisk(
      [
        clusterRole('cluster-admin', [rule('*', '*', '*')]),
        roleBinding('shop', 'shop-admin', 'cluster-admin', [userSubject('alice')], 'ClusterRole'),
      ],
      'user',
      'alice',
      'cluster_admin',
    );
    assert.equal(risk.score, 5);
    assert.equal(risk.namespace, 'shop');
  });

  test('near misses: only the core group, resourceNames, or a namespaced Role named cluster-admin', () => {
    assert.deepEqual(risksFor(clusterGrant([rule('', '*', '*')]), 'user', 'alice', 'cluster_admin'), []);
    assert.deepEqual(risksFor(clusterGrant([rule('*', '*', 'get')]), 'user', 'alice', 'cluster_admin'), []);
    assert.deepEqual(
      risksFor(clusterGrant([rule('*', '*', '*', ['x'])]), 'user', 'alice', 'cluster_admin'),
      [],
    );
    const namedLikeIt = [
      role('shop', 'cluster-admin', [rule('', 'configmaps', 'get')]),
      roleBinding('shop', 'b', 'cluster-admin', [userSubject('alice')], 'Role'),
    ];
    assert.deepEqual(risksFor(namedLikeIt, 'user', 'alice', 'cluster_admin'), []);
  });
});

describe('wildcard_permissions', () => {
  test('`*` as verb, as resource, or `*/subresource` triggers it', () => {
    assert.equal(
      oneRisk(clusterGrant([rule('', 'configmaps', '*')]), 'user', 'alice', 'wildcard_permissions').score,
      6,
    );
    assert.equal(
      oneRisk(clusterGrant([rule('apps', '*', 'get')]), 'user', 'alice', 'wildcard_permissions').score,
      6,
    );
    assert.equal(
      oneRisk(clusterGrant([rule('apps', '*/scale', 'update')]), 'user', 'alice', 'wildcard_permissions')
        .score,
      6,
    );
  });

  test('namespaced is half, resourceNames halve again', () => {
    assert.equal(
      oneRisk(namespaceGrant('shop', [rule('', 'configmaps', '*')]), 'user', 'alice', 'wildcard_permissions')
        .score,
      3,
    );
    const named = namespaceGrant('shop', [rule('', 'configmaps', '*', ['settings'])]);
    assert.equal(oneRisk(named, 'user', 'alice', 'wildcard_permissions').score, 1.5);
  });

  test('explicit lists and wildcard non-resource URLs do not trigger it', () => {
    const explicit = clusterGrant([rule(['', 'apps'], ['pods', 'deployments'], ['get', 'list', 'watch'])]);
    assert.deepEqual(risksFor(explicit, 'user', 'alice', 'wildcard_permissions'), []);
    const urls = clusterGrant([{ nonResourceURLs: ['*'], verbs: ['*'] }]);
    assert.deepEqual(risksFor(urls, 'user', 'alice', 'wildcard_permissions'), []);
  });
});

describe('secrets_read', () => {
  for (const verb of ['get', 'list', 'watch']) {
    test(`${verb} on secrets triggers it`, () => {
      assert.equal(
        oneRisk(clusterGrant([rule('', 'secrets', verb)]), 'user', 'alice', 'secrets_read').score,
        8,
      );
    });
  }

  test('cluster-wide is worse than namespaced, through a Role or a ClusterRole bound in the namespace', () => {
    const cluster = oneRisk(clusterGrant([rule('', 'secrets', 'list')]), 'user', 'alice', 'secrets_read');
    const viaRole = oneRisk(
      namespaceGrant('shop', [rule('', 'secrets', 'list')]),
      'user',
      'alice',
      'secrets_read',
    );
    const viaClusterRole = oneRisk(
      clusterRoleInNamespace('shop', [rule('', 'secrets', 'list')]),
      'user',
      'alice',
      'secrets_read',
    );
    assert.equal(cluster.severity, 'high');
    assert.ok(cluster.score > viaRole.score);
    assert.equal(viaRole.score, 4);
    assert.equal(viaClusterRole.score, 4);
    assert.equal(viaClusterRole.namespace, 'shop');
  });

  test('two namespaces are two risks of the type, each with its binding', () => {
    const objects = [
      clusterRole('reader', [rule('', 'secrets', 'get')]),
      roleBinding('a', 'read', 'reader', [userSubject('alice')], 'ClusterRole'),
      roleBinding('b', 'read', 'reader', [userSubject('alice')], 'ClusterRole'),
    ];
    const risks = risksFor(objects, 'user', 'alice', 'secrets_read');
    assert.deepEqual(
      risks.map((risk) => [risk.namespace, risk.associated_resources.map((r) => r.name)]),
      [
        ['a', ['ClusterRole/reader', 'RoleBinding/a/read']],
        ['b', ['ClusterRole/reader', 'RoleBinding/b/read']],
      ],
    );
  });

  test('resourceNames reduce it to named secrets: half the score', () => {
    const risk = oneRisk(
      clusterGrant([rule('', 'secrets', 'get', ['tls-cert'])]),
      'user',
      'alice',
      'secrets_read',
    );
    assert.equal(risk.score, 4);
  });

  test('writing secrets, reading configmaps, or secrets of another API group do not trigger it', () => {
    for (const grant of [
      rule('', 'secrets', ['create', 'update', 'delete']),
      rule('', 'configmaps', 'get'),
      rule('example.com', 'secrets', 'get'),
    ]) {
      assert.deepEqual(risksFor(clusterGrant([grant]), 'user', 'alice', 'secrets_read'), []);
    }
  });
});

const streams = [
  ['pod_exec', 'exec', 7],
  ['pod_attach', 'attach', 6],
  ['pod_port_forward', 'portforward', 5],
] as const;

for (const [type, subresource, weight] of streams) {
  describe(type, () => {
    test(`create or get on pods/${subresource} triggers it (WebSocket streams authorize as get)`, () => {
      for (const verb of ['create', 'get', '*']) {
        const risk = oneRisk(clusterGrant([rule('', `pods/${subresource}`, verb)]), 'user', 'alice', type);
        assert.equal(risk.score, weight);
      }
    });

    test(`*/${subresource} matches, namespaced halves, resourceNames halve again`, () => {
      assert.equal(
        oneRisk(clusterGrant([rule('', `*/${subresource}`, 'create')]), 'user', 'alice', type).score,
        weight,
      );
      const namespaced = namespaceGrant('shop', [rule('', `pods/${subresource}`, 'create')]);
      assert.equal(oneRisk(namespaced, 'user', 'alice', type).score, weight / 2);
      const named = namespaceGrant('shop', [rule('', `pods/${subresource}`, 'create', ['debug'])]);
      assert.equal(oneRisk(named, 'user', 'alice', type).score, weight / 4);
    });

    test('pods alone, pods/* (not a Kubernetes pattern) or list do not trigger it', () => {
      for (const grant of [
        rule('', 'pods', ['create', 'get']),
        rule('', 'pods/*', 'create'),
        rule('', `pods/${subresource}`, 'list'),
      ]) {
        assert.deepEqual(risksFor(clusterGrant([grant]), 'user', 'alice', type), []);
      }
    });
  });
}

test('pod_exec: adding an ephemeral debug container counts as exec; reading it does not', () => {
  for (const verb of ['update', 'patch']) {
    const grant = namespaceGrant('shop', [rule('', 'pods/ephemeralcontainers', verb)]);
    assert.equal(oneRisk(grant, 'user', 'alice', 'pod_exec').score, 3.5);
  }
  assert.deepEqual(
    risksFor(clusterGrant([rule('', 'pods/ephemeralcontainers', 'get')]), 'user', 'alice', 'pod_exec'),
    [],
  );
});

describe('workload_create', () => {
  const kinds = [
    ['', 'pods'],
    ['', 'replicationcontrollers'],
    ['apps', 'deployments'],
    ['apps', 'daemonsets'],
    ['apps', 'statefulsets'],
    ['apps', 'replicasets'],
    ['batch', 'jobs'],
    ['batch', 'cronjobs'],
  ] as const;
  for (const [group, resource] of kinds) {
    test(`create ${resource} triggers it; namespaced is half`, () => {
      assert.equal(
        oneRisk(clusterGrant([rule(group, resource, 'create')]), 'user', 'alice', 'workload_create').score,
        6,
      );
      const namespaced = namespaceGrant('shop', [rule(group, resource, 'create')]);
      assert.equal(oneRisk(namespaced, 'user', 'alice', 'workload_create').score, 3);
    });
  }

  test('create with resourceNames is exempt: Kubernetes cannot authorize a create by name', () => {
    const named = clusterGrant([rule('apps', 'deployments', 'create', ['web'])]);
    assert.deepEqual(risksFor(named, 'user', 'alice', 'workload_create'), []);
  });

  test('update or patch, other API groups and other resources do not trigger it', () => {
    for (const grant of [
      rule('apps', 'deployments', ['update', 'patch']),
      rule('extensions', 'deployments', 'create'),
      rule('', 'services', 'create'),
    ]) {
      assert.deepEqual(risksFor(clusterGrant([grant]), 'user', 'alice', 'workload_create'), []);
    }
  });
});
