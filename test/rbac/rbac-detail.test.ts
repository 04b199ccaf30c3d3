/** Access-control detail: #19 cluster role bindings, #20 groups, #21 users, #22 roles, cluster roles. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  bumped,
  clusterRole,
  clusterRoleBinding,
  deleted,
  identityNamed,
  pushObjects,
  pushSampleWithRbac,
  pushWatchEvents,
  storeAccessAsJsonbOnly,
} from '../identities/support.js';
import { createCluster, type KubeJson, sampleObject } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';

let t: TestApp;
let tenant: TestTenant;
let cluster: { id: string; name: string };

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  cluster = await pushSampleWithRbac(t, tenant, 'prod');
});
after(() => t.close());

const rbac = (path: string, owner = tenant) =>
  t.request({
    method: 'GET',
    url: `/accounts/${owner.accountId}/resources/rbac/${path}`,
    token: owner.adminToken,
  });
const uidOf = (kind: string, namespace: string | undefined, name: string) =>
  sampleObject(kind, namespace, name).metadata.uid as string;
const edges = (graph: KubeJson, type: string) =>
  graph.edges
    .filter((edge: KubeJson) => edge.type === type)
    .map((edge: KubeJson) => {
      const name = (id: string) => graph.nodes.find((node: KubeJson) => node.id === id).properties.name;
      return `${name(edge.from_id)} -> ${name(edge.to_id)}`;
    })
    .sort();
const tags = (rule: KubeJson) => rule.tags.map((tag: KubeJson) => `${tag.key}=${tag.value}`).sort();

describe('GET /resources/rbac/clusterrolebindings/{id}', () => {
  test('an aggregated role bound to a group and a user: role rules, subjects and graph', async () => {
    const res = await rbac(`clusterrolebindings/${uidOf('ClusterRoleBinding', undefined, 'sre-monitoring')}`);
    assert.equal(res.status, 200, res.text);
    const binding = res.body;
    assert.deepEqual(
      [
        binding.name,
        binding.namespace,
        binding.cluster_id,
        binding.account_id,
        binding.role_ref_kind,
        binding.role_ref_name,
      ],
      ['sre-monitoring', '', cluster.id, tenant.accountId, 'ClusterRole', 'monitoring-aggregate'],
    );
    assert.equal(binding.role, null);
    assert.equal(binding.cluster_role.name, 'monitoring-aggregate');
    // The aggregate holds its components' rules, each tagged with where it comes from.
    assert.deepEqual(binding.cluster_role.rules.flatMap((rule: KubeJson) => tags(rule)).sort(), [
      'aggregated_from=monitoring-endpoints-reader',
      'aggregated_from=monitoring-endpoints-reader',
      'aggregated_from=monitoring-metrics-reader',
    ]);
    assert.ok(
      binding.cluster_role.rules.every(
        (rule: KubeJson) => rule.severity === 'negligible' && rule.namespace === '',
      ),
    );
    assert.deepEqual(
      binding.groups.map((group: KubeJson) => group.name),
      ['sre'],
    );
    assert.deepEqual(
      binding.users.map((user: KubeJson) => user.name),
      ['carol@example.com'],
    );
    assert.deepEqual(binding.service_accounts, []);
    assert.equal(binding.groups[0].api_group, 'rbac.authorization.k8s.io');
    assert.equal(binding.groups[0].permissions.length, 3);
    assert.deepEqual(
      binding.groups[0].cluster_role_bindings.map((b: KubeJson) => b.name),
      ['sre-monitoring'],
    );
    assert.deepEqual(edges(binding.graph, 'subject_of'), [
      'carol@example.com -> sre-monitoring',
      'sre -> sre-monitoring',
    ]);
    assert.deepEqual(edges(binding.graph, 'role_ref'), ['sre-monitoring -> monitoring-aggregate']);
    assert.deepEqual(edges(binding.graph, 'aggregates'), [
      'monitoring-aggregate -> monitoring-endpoints-reader',
      'monitoring-aggregate -> monitoring-metrics-reader',
    ]);
  });

  test('a service account subject: its record, resource version and risky permissions', async () => {
    const res = await rbac(`clusterrolebindings/${uidOf('ClusterRoleBinding', undefined, 'ingress-nginx')}`);
    assert.equal(res.status, 200, res.text);
    const [account] = res.body.service_accounts;
    const object = sampleObject('ServiceAccount', 'ingress-nginx', 'ingress-nginx');
    assert.deepEqual(
      [account.name, account.namespace, account.uid, account.resource_version],
      ['ingress-nginx', 'ingress-nginx', object.metadata.uid, object.metadata.resourceVersion],
    );
    const identity = await identityNamed(t, tenant, 'k8s_service_account', 'ingress-nginx', 'ingress-nginx');
    assert.equal(account.id, identity.id);
    const secrets = account.permissions.find((rule: KubeJson) => rule.resources.includes('secrets'));
    assert.deepEqual(
      [secrets.severity, secrets.cluster_role_uid, secrets.role_uid],
      ['high', uidOf('ClusterRole', undefined, 'ingress-nginx'), ''],
    );
    assert.ok(tags(secrets).includes('risk_type=secrets_read'));
    assert.deepEqual(JSON.parse(secrets.content).resources, secrets.resources);
  });

  test('a binding to a missing role: no cluster_role, a missing node in the graph', async () => {
    const c = await createCluster(t, tenant.adminToken, tenant.accountId, 'missing-role');
    const binding = clusterRoleBinding('ghost', 'does-not-exist', [{ kind: 'User', name: 'gina' }]);
    await pushObjects(t, tenant, c.id, [binding]);
    const res = await rbac(`clusterrolebindings/${binding.metadata.uid}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.cluster_role, null);
    const node = res.body.graph.nodes.find((n: KubeJson) => n.type === 'cluster_role');
    assert.deepEqual(
      [node.properties.name, node.properties.missing, node.properties.uid],
      ['does-not-exist', true, ''],
    );
    assert.deepEqual(res.body.users[0].permissions, []);
  });

  test('uids of other kinds, unknown uids and other accounts are 404; a deleted binding is gone', async () => {
    for (const uid of [uidOf('RoleBinding', 'payments', 'payments-api-secrets'), 'no-such-uid']) {
      const res = await rbac(`clusterrolebindings/${uid}`);
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], uid);
    }
    const other = await createTenant(t);
    const res = await rbac(
      `clusterrolebindings/${uidOf('ClusterRoleBinding', undefined, 'sre-monitoring')}`,
      other,
    );
    assert.equal(res.status, 404);

    const c = await createCluster(t, tenant.adminToken, tenant.accountId, 'short-lived');
    const binding = clusterRoleBinding('temporary', 'view', [{ kind: 'User', name: 'tim' }]);
    await pushObjects(t, tenant, c.id, [binding]);
    assert.equal((await rbac(`clusterrolebindings/${binding.metadata.uid}`)).status, 200);
    await pushWatchEvents(t, tenant, c.id, [deleted(binding)]);
    assert.equal((await rbac(`clusterrolebindings/${binding.metadata.uid}`)).status, 404);
  });

  test('the same uid in two clusters: cluster_id picks one, else the latest; a bad cluster_id is 400', async () => {
    const owner = await createTenant(t);
    const binding = clusterRoleBinding('twin', 'view', [{ kind: 'User', name: 'ann' }]);
    const first = await createCluster(t, owner.adminToken, owner.accountId, 'first');
    const second = await createCluster(t, owner.adminToken, owner.accountId, 'second');
    await pushObjects(t, owner, first.id, [binding]);
    await pushObjects(t, owner, second.id, [bumped(binding)]);
    const latest = await rbac(`clusterrolebindings/${binding.metadata.uid}`, owner);
    assert.equal(latest.body.cluster_id, second.id);
    const picked = await rbac(`clusterrolebindings/${binding.metadata.uid}?cluster_id=${first.id}`, owner);
    assert.equal(picked.body.cluster_id, first.id);
    const bad = await rbac(`clusterrolebindings/${binding.metadata.uid}?cluster_id=first`, owner);
    assert.deepEqual([bad.status, bad.body.validation_details[0].field], [400, 'cluster_id']);
  });
});

describe('GET /resources/rbac/groups/{id} and /users/{id}', () => {
  test('a group: what reaches it, with risk tags on its permissions', async () => {
    const group = await identityNamed(t, tenant, 'k8s_group', '', 'system:authenticated');
    const res = await rbac(`groups/${group.id}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.id, res.body.name, res.body.cluster_id],
      [group.id, 'system:authenticated', cluster.id],
    );
    const names = res.body.cluster_role_bindings.map((b: KubeJson) => b.name);
    assert.ok(names.includes('read-all-authenticated') && names.includes('system:basic-user'));
    assert.deepEqual(res.body.role_bindings, []);
    assert.deepEqual(res.body.graph, group.rbac_objects.graph);
    assert.deepEqual(res.body.assigned_roles, group.rbac_objects.assigned_roles);
    assert.ok(res.body.permissions.length > 0);
  });

  test("a user: its own and its groups' bindings, permissions with pod_exec tags", async () => {
    const alice = await identityNamed(t, tenant, 'k8s_user', '', 'alice@example.com');
    const res = await rbac(`users/${alice.id}`);
    assert.equal(res.status, 200, res.text);
    // debugger-alice names her; the others reach her through system:authenticated.
    assert.deepEqual(
      res.body.cluster_role_bindings.map((b: KubeJson) => b.name),
      ['debugger-alice', 'read-all-authenticated', 'system:basic-user', 'system:public-info-viewer'],
    );
    assert.deepEqual(edges(res.body.graph, 'member_of'), ['alice@example.com -> system:authenticated']);
    const exec = res.body.permissions.find((rule: KubeJson) => rule.resources.includes('pods/exec'));
    assert.deepEqual(
      tags(exec).filter((tag: string) => tag.startsWith('risk_type')),
      ['risk_type=pod_attach', 'risk_type=pod_exec', 'risk_type=pod_port_forward'],
    );
    assert.equal(exec.severity, 'high');
  });

  test('the wrong kind of identity, malformed and unknown ids are 404', async () => {
    const alice = await identityNamed(t, tenant, 'k8s_user', '', 'alice@example.com');
    const sre = await identityNamed(t, tenant, 'k8s_group', '', 'sre');
    for (const path of [
      `groups/${alice.id}`,
      `users/${sre.id}`,
      'users/alice@example.com',
      `groups/${crypto.randomUUID()}`,
    ]) {
      const res = await rbac(path);
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], path);
    }
  });
});

describe('GET /resources/rbac/roles/{uid} and /clusterroles/{uid}', () => {
  test('a Role: its rules in its namespace, its bindings, subjects and graph', async () => {
    const res = await rbac(`roles/${uidOf('Role', 'payments', 'secret-reader')}`);
    assert.equal(res.status, 200, res.text);
    const role = res.body;
    assert.deepEqual([role.name, role.namespace, role.cluster_id], ['secret-reader', 'payments', cluster.id]);
    assert.deepEqual(
      role.rules.map((rule: KubeJson) => [rule.namespace, rule.severity, rule.role_uid, tags(rule)]),
      [['payments', 'medium', role.uid, ['risk_type=secrets_read']]],
    );
    assert.deepEqual(
      role.role_bindings.map((b: KubeJson) => b.name),
      ['payments-api-secrets'],
    );
    const account = sampleObject('ServiceAccount', 'payments', 'payments-api');
    assert.deepEqual(
      role.assigned_subjects.map((s: KubeJson) => [s.kind, s.namespace, s.name, s.uid]),
      [['ServiceAccount', 'payments', 'payments-api', account.metadata.uid]],
    );
    assert.deepEqual(edges(role.graph, 'subject_of'), ['payments-api -> payments-api-secrets']);
    assert.deepEqual(edges(role.graph, 'role_ref'), ['payments-api-secrets -> secret-reader']);
  });

  test('a ClusterRole bound in a namespace lists that RoleBinding; its rules rate cluster-wide', async () => {
    const res = await rbac(`clusterroles/${uidOf('ClusterRole', undefined, 'token-minter')}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.role_bindings.map((b: KubeJson) => [b.namespace, b.name]),
      [['storefront', 'cache-warmer-tokens']],
    );
    assert.deepEqual(
      res.body.rules.map((rule: KubeJson) => [rule.namespace, rule.severity, tags(rule)]),
      [['', 'high', ['risk_type=service_account_token_create']]],
    );
    const cluster_admin = await rbac(`clusterroles/${uidOf('ClusterRole', undefined, 'cluster-admin')}`);
    assert.equal(cluster_admin.body.rules[0].severity, 'critical');
    assert.ok(
      cluster_admin.body.assigned_subjects.some(
        (s: KubeJson) => s.kind === 'Group' && s.name === 'system:masters',
      ),
    );
  });

  test('a Role uid on the clusterroles path and the reverse are 404', async () => {
    const a = await rbac(`clusterroles/${uidOf('Role', 'payments', 'secret-reader')}`);
    const b = await rbac(`roles/${uidOf('ClusterRole', undefined, 'token-minter')}`);
    assert.deepEqual([a.status, b.status], [404, 404]);
  });

  test('changed rules show at the next ingestion', async () => {
    const owner = await createTenant(t);
    const c = await createCluster(t, owner.adminToken, owner.accountId, 'prod');
    const reader = clusterRole('reader', [{ resources: ['pods'], verbs: ['get'] }]);
    await pushObjects(t, owner, c.id, [reader]);
    const before = await rbac(`clusterroles/${reader.metadata.uid}`, owner);
    assert.equal(before.body.rules[0].severity, 'negligible');
    const widened = bumped(reader, (copy) => {
      copy.rules = [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }];
    });
    await pushObjects(t, owner, c.id, [widened]);
    const after = await rbac(`clusterroles/${reader.metadata.uid}`, owner);
    assert.deepEqual(
      [after.body.resource_version, after.body.rules[0].resources, after.body.rules[0].severity],
      [widened.metadata.resourceVersion, ['secrets'], 'high'],
    );
  });
});

describe('subject identities stored before their access texts', () => {
  test('groups, users and the subjects of a binding answer the same from the rbac_objects jsonb', async () => {
    const owner = await createTenant(t);
    await pushSampleWithRbac(t, owner, 'prod');
    const group = await identityNamed(t, owner, 'k8s_group', '', 'system:authenticated');
    const alice = await identityNamed(t, owner, 'k8s_user', '', 'alice@example.com');
    const paths = [
      `groups/${group.id}`,
      `users/${alice.id}`,
      `clusterrolebindings/${uidOf('ClusterRoleBinding', undefined, 'ingress-nginx')}`,
    ];
    const fromTexts: Awaited<ReturnType<typeof rbac>>[] = [];
    for (const path of paths) fromTexts.push(await rbac(path, owner));
    assert.ok(fromTexts.every((res) => res.status === 200));
    assert.ok(fromTexts[0]!.body.graph.nodes.length > 1 && fromTexts[1]!.body.assigned_roles.length > 0);

    await storeAccessAsJsonbOnly(t, owner.accountId);
    const { rows } = await t.db.query<{ n: number | string }>(
      'select count(*) as n from identities where account_id = $1 and access_json is not null',
      [owner.accountId],
    );
    assert.equal(Number(rows[0]!.n), 0);
    for (const [index, path] of paths.entries()) {
      const res = await rbac(path, owner);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text, fromTexts[index]!.text, path);
    }
  });
});
