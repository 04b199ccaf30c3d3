/** Which identities exist and which permissions reach them, with namespace scope kept. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  clusterRole,
  clusterRoleBinding,
  groupSubject,
  role,
  roleBinding,
  rule,
  saSubject,
  serviceAccount,
  userSubject,
} from './fixtures/builders.js';
import { defaultCluster } from './fixtures/default-cluster.js';
import { CLUSTER_ID, compute, identityIn } from './fixtures/harness.js';
import { identityId } from './ids.js';

describe('identities', () => {
  test('service accounts, and every user and group subject, are identities; system ones included', () => {
    const result = compute([
      ...defaultCluster(),
      serviceAccount('shop', 'api'),
      clusterRoleBinding('devs', 'view', [userSubject('alice'), groupSubject('developers')]),
    ]);
    assert.deepEqual(
      result.identities.map((identity) => [
        identity.type,
        identity.namespace,
        identity.name,
        identity.facets.system,
      ]),
      [
        ['k8s_group', '', 'developers', false],
        ['k8s_group', '', 'system:authenticated', true],
        ['k8s_group', '', 'system:masters', true],
        ['k8s_group', '', 'system:unauthenticated', true],
        ['k8s_service_account', 'kube-system', 'replicaset-controller', true],
        ['k8s_service_account', 'shop', 'api', false],
        ['k8s_user', '', 'alice', false],
        ['k8s_user', '', 'system:kube-controller-manager', true],
      ],
    );
    const api = identityIn(result, 'sa', 'shop/api');
    assert.equal(api.id, identityId(CLUSTER_ID, 'ServiceAccount', 'shop', 'api'));
    assert.equal(api.original_id, 'uid-serviceaccount-shop-api');
    assert.deepEqual([api.source_id, api.source_name, api.source_type], [CLUSTER_ID, 'prod', 'k8s_cluster']);
    assert.equal(identityIn(result, 'user', 'alice').original_id, 'alice');
  });

  test('ids depend on cluster, kind, namespace and name only: a recreated account keeps its id', () => {
    const before = identityIn(compute([serviceAccount('shop', 'api')]), 'sa', 'shop/api');
    const recreated = serviceAccount('shop', 'api');
    (recreated.metadata as Record<string, unknown>).uid = 'a-new-uid';
    const after = identityIn(compute([recreated]), 'sa', 'shop/api');
    assert.equal(after.id, before.id);
    assert.equal(after.original_id, 'a-new-uid');
    assert.notEqual(identityIn(compute([serviceAccount('other', 'api')]), 'sa', 'other/api').id, before.id);
  });

  test('a bound service account that does not exist is an identity: creating it would inherit the grant', () => {
    const result = compute([roleBinding('shop', 'b', 'edit', [saSubject('shop', 'ghost')], 'ClusterRole')]);
    const ghost = identityIn(result, 'sa', 'shop/ghost');
    assert.equal(ghost.original_id, 'system:serviceaccount:shop:ghost');
    assert.deepEqual(
      ghost.rbac_objects.assigned_roles.map((r) => [r.name, r.namespace]),
      [['edit', 'shop']],
    );
  });

  test('a User subject system:serviceaccount:<ns>:<name> is that service account', () => {
    const result = compute([
      serviceAccount('ci', 'deployer'),
      clusterRole('reader', [rule('', 'configmaps', 'get')]),
      clusterRoleBinding('b', 'reader', [userSubject('system:serviceaccount:ci:deployer')]),
    ]);
    assert.equal(result.identities.filter((identity) => identity.type === 'k8s_user').length, 0);
    assert.equal(identityIn(result, 'sa', 'ci/deployer').rbac_objects.permissions.length, 1);
  });

  test('malformed subjects and bindings are skipped with warnings, the rest still computed', () => {
    const result = compute([
      clusterRoleBinding('no-ns', 'view', [{ kind: 'ServiceAccount', name: 'x' }]),
      clusterRoleBinding('odd', 'view', [{ kind: 'Robot', name: 'r2' }, userSubject('alice')]),
      {
        kind: 'ClusterRoleBinding',
        metadata: { name: 'bad-ref' },
        roleRef: { kind: 'Role', name: 'x' },
        subjects: [],
      },
    ]);
    assert.deepEqual(
      result.identities.map((identity) => identity.name),
      ['alice'],
    );
    assert.equal(
      result.warnings.filter((w) => /no namespace|not an identity kind|not valid here/.test(w)).length,
      3,
    );
  });
});

describe('permissions', () => {
  test('a RoleBinding to a ClusterRole grants it only in the binding namespace; a ClusterRoleBinding everywhere', () => {
    const result = compute([
      clusterRole('reader', [rule('', 'configmaps', 'get')]),
      roleBinding('shop', 'r', 'reader', [userSubject('alice')], 'ClusterRole'),
      clusterRoleBinding('r', 'reader', [userSubject('bob')]),
    ]);
    const entry = { api_groups: [''], resource_names: [], resources: ['configmaps'], verbs: ['get'] };
    assert.deepEqual(identityIn(result, 'user', 'alice').rbac_objects.permissions, [
      { ...entry, namespace: 'shop' },
    ]);
    assert.deepEqual(identityIn(result, 'user', 'bob').rbac_objects.permissions, [
      { ...entry, namespace: '' },
    ]);
  });

  test("a RoleBinding's Role is looked up in the binding's namespace only", () => {
    const result = compute([
      role('other', 'reader', [rule('', 'secrets', 'get')]),
      roleBinding('shop', 'r', 'reader', [userSubject('alice')]),
    ]);
    const alice = identityIn(result, 'user', 'alice');
    assert.deepEqual(alice.rbac_objects.permissions, []);
    assert.ok(result.warnings.some((warning) => warning.includes('missing Role "reader"')));
    assert.equal(
      alice.rbac_objects.graph.nodes.find((node) => node.type === 'role')?.properties.missing,
      true,
    );
  });

  test('deleting the role or binding removes the permission at the next computation', () => {
    const roleObject = clusterRole('reader', [rule('', 'secrets', 'get')]);
    const binding = clusterRoleBinding('r', 'reader', [saSubject('shop', 'api')]);
    const account = serviceAccount('shop', 'api');
    assert.equal(
      identityIn(compute([account, roleObject, binding]), 'sa', 'shop/api').rbac_objects.permissions.length,
      1,
    );
    assert.deepEqual(identityIn(compute([account, binding]), 'sa', 'shop/api').rbac_objects.permissions, []);
    const without = identityIn(compute([account, roleObject]), 'sa', 'shop/api');
    assert.deepEqual([without.rbac_objects.permissions, without.risk_types], [[], ['unused_identity']]);
  });

  test('the union is de-duplicated per namespace; non-resource URLs are left out; actions are the verbs', () => {
    const result = compute([
      clusterRole('a', [
        rule('', 'pods', ['list', 'get']),
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ]),
      clusterRole('b', [rule('', 'pods', ['get', 'list'])]),
      clusterRoleBinding('a', 'a', [userSubject('alice')]),
      clusterRoleBinding('b', 'b', [userSubject('alice')]),
      roleBinding('shop', 'b', 'b', [userSubject('alice')], 'ClusterRole'),
    ]);
    const alice = identityIn(result, 'user', 'alice');
    assert.deepEqual(
      alice.rbac_objects.permissions.map((p) => [p.namespace, p.verbs]),
      [
        ['', ['get', 'list']],
        ['shop', ['get', 'list']],
      ],
    );
    assert.deepEqual(alice.actions, ['get', 'list']);
    assert.deepEqual(alice.facets.resources, ['pods']);
    assert.deepEqual(
      alice.rbac_objects.assigned_roles.map((r) => [r.kind, r.name, r.namespace]),
      [
        ['ClusterRole', 'a', ''],
        ['ClusterRole', 'b', ''],
        ['ClusterRole', 'b', 'shop'],
      ],
    );
  });
});

describe('implicit groups', () => {
  const grantTo = (group: string) => [
    clusterRole(`for-${group}`, [rule('', 'configmaps', 'get', [group])]),
    clusterRoleBinding(`for-${group}`, `for-${group}`, [groupSubject(group)]),
  ];
  const namesFor = (identity: { rbac_objects: { permissions: { resource_names: string[] }[] } }) =>
    identity.rbac_objects.permissions.flatMap((permission) => permission.resource_names).sort();

  test('service accounts get system:serviceaccounts, their namespace group and system:authenticated', () => {
    const result = compute([
      serviceAccount('shop', 'api'),
      ...[
        'system:serviceaccounts',
        'system:serviceaccounts:shop',
        'system:serviceaccounts:other',
        'system:authenticated',
        'system:unauthenticated',
      ].flatMap(grantTo),
    ]);
    assert.deepEqual(namesFor(identityIn(result, 'sa', 'shop/api')), [
      'system:authenticated',
      'system:serviceaccounts',
      'system:serviceaccounts:shop',
    ]);
  });

  test('users get system:authenticated, system:anonymous gets system:unauthenticated, groups get none', () => {
    const result = compute([
      clusterRoleBinding('named', 'nothing', [
        userSubject('alice'),
        userSubject('system:anonymous'),
        groupSubject('devs'),
      ]),
      ...['system:serviceaccounts', 'system:authenticated', 'system:unauthenticated'].flatMap(grantTo),
    ]);
    assert.deepEqual(namesFor(identityIn(result, 'user', 'alice')), ['system:authenticated']);
    assert.deepEqual(namesFor(identityIn(result, 'user', 'system:anonymous')), ['system:unauthenticated']);
    assert.deepEqual(namesFor(identityIn(result, 'group', 'devs')), []);
  });
});
