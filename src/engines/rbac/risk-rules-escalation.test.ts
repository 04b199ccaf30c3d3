/**
 * Per-rule tests, part 2: escalate/bind, impersonate, token creation, CSR approval, nodes/proxy,
 * webhook configurations, broad group bindings and unused service accounts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  clusterRole,
  clusterRoleBinding,
  groupSubject,
  pod,
  roleBinding,
  rule,
  saSubject,
  serviceAccount,
  userSubject,
  workload,
} from './fixtures/builders.js';
import { defaultCluster } from './fixtures/default-cluster.js';
import {
  clusterGrant,
  clusterRoleInNamespace,
  compute,
  identityIn,
  namespaceGrant,
  oneRisk,
  risksFor,
  risksOf,
} from './fixtures/harness.js';

const RBAC = 'rbac.authorization.k8s.io';

describe('role_escalate_bind', () => {
  test('escalate or bind on roles, bind on clusterroles, escalate on clusterroles cluster-wide', () => {
    for (const grant of [
      rule(RBAC, 'roles', 'escalate'),
      rule(RBAC, 'roles', 'bind'),
      rule(RBAC, 'clusterroles', 'bind'),
    ]) {
      assert.equal(oneRisk(clusterGrant([grant]), 'user', 'alice', 'role_escalate_bind').score, 8);
    }
    assert.equal(
      oneRisk(clusterGrant([rule(RBAC, 'clusterroles', 'escalate')]), 'user', 'alice', 'role_escalate_bind')
        .score,
      8,
    );
  });

  test('bind on clusterroles inside a namespace counts (it binds them there); escalate on clusterroles does not', () => {
    const bind = clusterRoleInNamespace('shop', [rule(RBAC, 'clusterroles', 'bind')]);
    assert.equal(oneRisk(bind, 'user', 'alice', 'role_escalate_bind').score, 4);
    const escalate = clusterRoleInNamespace('shop', [rule(RBAC, 'clusterroles', 'escalate')]);
    assert.deepEqual(risksFor(escalate, 'user', 'alice', 'role_escalate_bind'), []);
  });

  test('resourceNames halve it, unless they name cluster-admin', () => {
    const view = clusterGrant([rule(RBAC, 'clusterroles', 'bind', ['view'])]);
    assert.equal(oneRisk(view, 'user', 'alice', 'role_escalate_bind').score, 4);
    const admin = clusterGrant([rule(RBAC, 'clusterroles', 'bind', ['view', 'cluster-admin'])]);
    assert.equal(oneRisk(admin, 'user', 'alice', 'role_escalate_bind').score, 8);
  });

  test('creating or updating roles without escalate/bind does not trigger it', () => {
    const grant = clusterGrant([
      rule(RBAC, ['roles', 'clusterroles', 'rolebindings'], ['create', 'update', 'patch']),
    ]);
    assert.deepEqual(risksFor(grant, 'user', 'alice', 'role_escalate_bind'), []);
  });
});

describe('impersonate', () => {
  test('impersonate users, groups or service accounts cluster-wide triggers it at full weight', () => {
    for (const resource of ['users', 'groups', 'serviceaccounts']) {
      assert.equal(
        oneRisk(clusterGrant([rule('', resource, 'impersonate')]), 'user', 'alice', 'impersonate').score,
        9,
      );
    }
  });

  test('in a namespace only service accounts can be impersonated (users and groups are cluster-scoped)', () => {
    const sa = namespaceGrant('shop', [rule('', 'serviceaccounts', 'impersonate')]);
    assert.equal(oneRisk(sa, 'user', 'alice', 'impersonate').score, 4.5);
    const users = clusterRoleInNamespace('shop', [rule('', ['users', 'groups'], 'impersonate')]);
    assert.deepEqual(risksFor(users, 'user', 'alice', 'impersonate'), []);
  });

  test('resourceNames halve it, unless they name system:masters', () => {
    const named = clusterGrant([rule('', 'groups', 'impersonate', ['developers'])]);
    assert.equal(oneRisk(named, 'user', 'alice', 'impersonate').score, 4.5);
    const masters = clusterGrant([rule('', 'groups', 'impersonate', ['system:masters'])]);
    assert.equal(oneRisk(masters, 'user', 'alice', 'impersonate').score, 9);
  });

  test('other verbs on users, groups or service accounts do not trigger it', () => {
    const grant = clusterGrant([rule('', ['users', 'groups', 'serviceaccounts'], ['get', 'list', 'create'])]);
    assert.deepEqual(risksFor(grant, 'user', 'alice', 'impersonate'), []);
  });
});

describe('service_account_token_create', () => {
  test('create serviceaccounts/token triggers it; namespaced half, resourceNames half again', () => {
    assert.equal(
      oneRisk(
        clusterGrant([rule('', 'serviceaccounts/token', 'create')]),
        'user',
        'alice',
        'service_account_token_create',
      ).score,
      7,
    );
    // A subresource create is authorized with the account's name, so resourceNames do restrict it.
    const named = namespaceGrant('shop', [rule('', 'serviceaccounts/token', 'create', ['builder'])]);
    assert.equal(oneRisk(named, 'user', 'alice', 'service_account_token_create').score, 1.75);
  });

  test('get on the token subresource or create serviceaccounts do not trigger it', () => {
    for (const grant of [rule('', 'serviceaccounts/token', 'get'), rule('', 'serviceaccounts', 'create')]) {
      assert.deepEqual(risksFor(clusterGrant([grant]), 'user', 'alice', 'service_account_token_create'), []);
    }
  });
});

describe('csr_approve', () => {
  const approval = rule('certificates.k8s.io', 'certificatesigningrequests/approval', 'update');
  const signers = (names?: string[]) => rule('certificates.k8s.io', 'signers', 'approve', names);

  test('approval update plus signer approve cluster-wide triggers it, even from two bindings', () => {
    assert.equal(oneRisk(clusterGrant([approval, signers()]), 'user', 'alice', 'csr_approve').score, 7);
    const split = [
      ...clusterGrant([approval], userSubject('alice'), 'a'),
      ...clusterGrant([signers()], userSubject('alice'), 'b'),
    ];
    const risk = oneRisk(split, 'user', 'alice', 'csr_approve');
    assert.equal(risk.risk_counter, 2);
    assert.deepEqual(
      risk.associated_resources.map((resource) => resource.name),
      ['ClusterRole/a', 'ClusterRole/b', 'ClusterRoleBinding/a', 'ClusterRoleBinding/b'],
    );
  });

  test('either half alone, or both in a namespace (CSRs are cluster-scoped), do not trigger it', () => {
    assert.deepEqual(risksFor(clusterGrant([approval]), 'user', 'alice', 'csr_approve'), []);
    assert.deepEqual(risksFor(clusterGrant([signers()]), 'user', 'alice', 'csr_approve'), []);
    assert.deepEqual(
      risksFor(clusterRoleInNamespace('shop', [approval, signers()]), 'user', 'alice', 'csr_approve'),
      [],
    );
  });

  test('signer resourceNames halve it, unless they include the API server client signer', () => {
    const kubelet = clusterGrant([approval, signers(['kubernetes.io/kubelet-serving'])]);
    assert.equal(oneRisk(kubelet, 'user', 'alice', 'csr_approve').score, 3.5);
    const client = clusterGrant([approval, signers(['kubernetes.io/kube-apiserver-client'])]);
    assert.equal(oneRisk(client, 'user', 'alice', 'csr_approve').score, 7);
  });
});

describe('nodes_proxy', () => {
  test('get or create on nodes/proxy cluster-wide triggers it', () => {
    for (const verb of ['get', 'create']) {
      assert.equal(
        oneRisk(clusterGrant([rule('', 'nodes/proxy', verb)]), 'user', 'alice', 'nodes_proxy').score,
        8,
      );
    }
  });

  test('nodes/proxy through a RoleBinding (nodes are cluster-scoped), get nodes, or list do not trigger it', () => {
    assert.deepEqual(
      risksFor(
        clusterRoleInNamespace('shop', [rule('', 'nodes/proxy', 'get')]),
        'user',
        'alice',
        'nodes_proxy',
      ),
      [],
    );
    for (const grant of [rule('', 'nodes', 'get'), rule('', 'nodes/proxy', 'list')]) {
      assert.deepEqual(risksFor(clusterGrant([grant]), 'user', 'alice', 'nodes_proxy'), []);
    }
  });
});

describe('webhook_config_write', () => {
  const group = 'admissionregistration.k8s.io';
  test('create, update or patch mutating or validating webhook configurations triggers it', () => {
    for (const resource of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
      for (const verb of ['create', 'update', 'patch']) {
        assert.equal(
          oneRisk(clusterGrant([rule(group, resource, verb)]), 'user', 'alice', 'webhook_config_write').score,
          8,
        );
      }
    }
  });

  test('update by name is half; create by name, read, delete or a RoleBinding do not trigger it', () => {
    const named = clusterGrant([
      rule(group, 'mutatingwebhookconfigurations', ['create', 'update'], ['istio']),
    ]);
    assert.equal(oneRisk(named, 'user', 'alice', 'webhook_config_write').score, 4);
    for (const grant of [
      rule(group, 'validatingwebhookconfigurations', 'create', ['x']),
      rule(group, 'validatingwebhookconfigurations', ['get', 'list', 'watch', 'delete']),
    ]) {
      assert.deepEqual(risksFor(clusterGrant([grant]), 'user', 'alice', 'webhook_config_write'), []);
    }
    const namespaced = clusterRoleInNamespace('shop', [
      rule(group, 'mutatingwebhookconfigurations', 'create'),
    ]);
    assert.deepEqual(risksFor(namespaced, 'user', 'alice', 'webhook_config_write'), []);
  });
});

describe('broad_group_binding', () => {
  test("Kubernetes' default bindings of everyone to discovery and self reviews do not trigger it", () => {
    const result = compute(defaultCluster());
    for (const identity of result.identities)
      assert.deepEqual(risksOf(identity, 'broad_group_binding'), [], identity.name);
  });

  test('anonymous and unauthenticated bindings weigh fully, authenticated 70%, namespaced half', () => {
    const view = [rule('', 'configmaps', 'get')];
    assert.equal(
      oneRisk(
        clusterGrant(view, userSubject('system:anonymous')),
        'user',
        'system:anonymous',
        'broad_group_binding',
      ).score,
      9,
    );
    assert.equal(
      oneRisk(
        clusterGrant(view, groupSubject('system:unauthenticated')),
        'group',
        'system:unauthenticated',
        'broad_group_binding',
      ).score,
      9,
    );
    const authenticated = groupSubject('system:authenticated');
    assert.equal(
      oneRisk(clusterGrant(view, authenticated), 'group', 'system:authenticated', 'broad_group_binding')
        .score,
      6.3,
    );
    assert.equal(
      oneRisk(
        namespaceGrant('shop', view, authenticated),
        'group',
        'system:authenticated',
        'broad_group_binding',
      ).score,
      3.15,
    );
  });

  test('non-public URLs count; other groups and members inheriting the grant do not get this risk', () => {
    const metrics = clusterGrant(
      [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      userSubject('system:anonymous'),
    );
    assert.equal(risksFor(metrics, 'user', 'system:anonymous', 'broad_group_binding').length, 1);
    const secrets = [rule('', 'secrets', 'get')];
    assert.deepEqual(
      risksFor(
        clusterGrant(secrets, groupSubject('developers')),
        'group',
        'developers',
        'broad_group_binding',
      ),
      [],
    );
    const inherited = [
      serviceAccount('shop', 'api'),
      ...clusterGrant(secrets, groupSubject('system:authenticated')),
    ];
    const api = identityIn(compute(inherited), 'sa', 'shop/api');
    assert.deepEqual(risksOf(api, 'broad_group_binding'), []);
    assert.equal(risksOf(api, 'secrets_read').length, 1, 'the member does inherit what the group may do');
  });
});

describe('unused_identity', () => {
  test('a service account no workload runs as: negligible alone, full weight when something is bound to it', () => {
    const bare = oneRisk([serviceAccount('shop', 'old')], 'sa', 'shop/old', 'unused_identity');
    assert.equal(bare.score, 0.5);
    assert.equal(bare.severity, 'negligible');
    const bound = [
      serviceAccount('shop', 'old'),
      roleBinding('shop', 'old', 'view', [saSubject('shop', 'old')], 'ClusterRole'),
    ];
    const risk = oneRisk(bound, 'sa', 'shop/old', 'unused_identity');
    assert.equal(risk.score, 2);
    assert.deepEqual(
      risk.associated_resources.map((resource) => resource.name),
      ['RoleBinding/shop/old', 'ServiceAccount/shop/old'],
    );
  });

  test('a pod, a workload scaled to zero, or the default account of a pod without serviceAccountName use it', () => {
    const objects = [
      serviceAccount('shop', 'api'),
      serviceAccount('shop', 'batch'),
      serviceAccount('shop', 'default'),
      pod('shop', 'api-1', { serviceAccountName: 'api' }),
      workload('CronJob', 'shop', 'nightly', 'batch'),
      pod('shop', 'bare'),
    ];
    const result = compute(objects);
    for (const ref of ['shop/api', 'shop/batch', 'shop/default']) {
      assert.deepEqual(risksOf(identityIn(result, 'sa', ref), 'unused_identity'), [], ref);
    }
  });

  test('kube-system accounts (used by the control plane from outside pods), users and groups never get it', () => {
    const result = compute([
      serviceAccount('kube-system', 'replicaset-controller'),
      clusterRoleBinding('x', 'view', [userSubject('alice'), groupSubject('devs')]),
    ]);
    for (const identity of result.identities)
      assert.deepEqual(risksOf(identity, 'unused_identity'), [], identity.name);
  });

  test('an account used only by an old ReplicaSet of a Deployment that moved on is unused', () => {
    const owner = { kind: 'Deployment', name: 'web', namespace: 'shop' };
    const objects = [
      serviceAccount('shop', 'old'),
      serviceAccount('shop', 'new'),
      workload('Deployment', 'shop', 'web', 'new'),
      workload('ReplicaSet', 'shop', 'web-1', 'old', owner),
    ];
    assert.equal(risksFor(objects, 'sa', 'shop/old', 'unused_identity').length, 1);
    assert.deepEqual(risksFor(objects, 'sa', 'shop/new', 'unused_identity'), []);
  });
});

test('a role with only harmless permissions triggers no rule at all', () => {
  const objects = [
    serviceAccount('shop', 'api'),
    pod('shop', 'api-1', { serviceAccountName: 'api' }),
    clusterRole('reader', [
      rule(['', 'apps'], ['pods', 'configmaps', 'deployments', 'events'], ['get', 'list', 'watch']),
    ]),
    roleBinding('shop', 'api-reader', 'reader', [saSubject('shop', 'api')], 'ClusterRole'),
  ];
  const api = identityIn(compute(objects), 'sa', 'shop/api');
  assert.deepEqual(api.risks, []);
  assert.equal(api.risk_level, 'Unspecified');
  assert.equal(api.risk_score, 0);
});
