/** #15 filter options, #16 one identity, #17 risks of a type, #18 the report; account isolation. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RISK_RULES } from '../../src/engines/rbac/index.js';
import { createCluster, type KubeJson } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  allIdentities,
  clusterRole,
  clusterRoleBinding,
  identityNamed,
  pushObjects,
  pushSampleWithRbac,
  roleBinding,
  serviceAccount,
} from './support.js';

let t: TestApp;
let tenant: TestTenant;
let cluster: { id: string; name: string };
let everything: KubeJson[];

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  cluster = await pushSampleWithRbac(t, tenant, 'prod');
  everything = await allIdentities(t, tenant);
});
after(() => t.close());

const get = (url: string, token = tenant.adminToken) => t.request({ method: 'GET', url, token });
const account = () => `/accounts/${tenant.accountId}`;
const distinct = (values: string[]) => [...new Set(values)].sort();

describe('GET /identities/filters', () => {
  test('each of the eight lists holds exactly the values that occur, with labels', async () => {
    const res = await get(`${account()}/identities/filters`);
    assert.equal(res.status, 200, res.text);
    const values = (key: string) => res.body[key].map((option: { value: string }) => option.value).sort();
    assert.deepEqual(values('identity_types'), distinct(everything.map((i) => i.type)));
    assert.deepEqual(values('risk_levels'), distinct(everything.map((i) => i.risk_level)));
    assert.deepEqual(values('statuses'), ['open', 'resolved']);
    assert.deepEqual(values('usages'), ['unknown', 'unused', 'used']);
    assert.deepEqual(values('identity_sources'), [cluster.id]);
    assert.deepEqual(values('risk_types'), distinct(everything.flatMap((i) => i.risk_types)));
    assert.deepEqual(values('actions'), distinct(everything.flatMap((i) => i.actions)));
    assert.deepEqual(
      values('resources'),
      distinct(
        everything.flatMap((i) =>
          i.rbac_objects.permissions.flatMap((p: { resources: string[] }) => p.resources),
        ),
      ),
    );
    assert.deepEqual(res.body.identity_sources, [{ label: 'prod', value: cluster.id }]);
    assert.deepEqual(
      res.body.risk_levels.map((option: { value: string }) => option.value),
      ['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unspecified'],
      'levels from the worst down',
    );
    const secrets = res.body.risk_types.find((option: { value: string }) => option.value === 'secrets_read');
    assert.equal(secrets.label, RISK_RULES.find((rule) => rule.type === 'secrets_read')!.name);
    assert.ok(
      res.body.identity_types.some(
        (o: KubeJson) => o.value === 'k8s_service_account' && o.label === 'Service account',
      ),
    );
  });

  test('every offered value filters the list to at least one identity', async () => {
    const res = await get(`${account()}/identities/filters`);
    const params: Record<string, string> = {
      actions: 'actions',
      identity_sources: 'identity_sources',
      identity_types: 'identity_types',
      resources: 'resources',
      risk_levels: 'risk_levels',
      risk_types: 'risks',
      statuses: 'statuses',
      usages: 'usages',
    };
    for (const [key, param] of Object.entries(params)) {
      for (const { value } of res.body[key]) {
        const list = await get(`${account()}/identities?page_size=1&${param}=${encodeURIComponent(value)}`);
        assert.equal(list.status, 200, `${param}=${value}`);
        assert.ok(list.body.total_count > 0, `${param}=${value}`);
      }
    }
  });

  test('an account without identities gets eight empty lists', async () => {
    const empty = await createTenant(t);
    const res = await get(`/accounts/${empty.accountId}/identities/filters`, empty.adminToken);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.values(res.body), [[], [], [], [], [], [], [], []]);
  });
});

describe('GET /identities/{identity_id}', () => {
  test('the identity as the list shows it, with its risks, raw objects and graph', async () => {
    const listed = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'payments-api');
    const res = await get(`${account()}/identities/${listed.id}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, listed);
    const identity = res.body;
    assert.deepEqual(
      [identity.account_id, identity.tenant_id, identity.source_id, identity.source_type],
      [tenant.accountId, tenant.tenantId, cluster.id, 'k8s_cluster'],
    );
    assert.ok(identity.linked_resources > 0 && identity.last_used_at !== null);
    assert.deepEqual(
      identity.raw_rbac_objects.role_bindings.map((object: KubeJson) => object.metadata.name),
      ['payments-api-secrets'],
    );
    assert.deepEqual(
      identity.raw_rbac_objects.roles.map((object: KubeJson) => object.rules),
      [[{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }]],
    );
    const assigned = identity.rbac_objects.assigned_roles.find(
      (role: KubeJson) => role.name === 'secret-reader',
    );
    assert.deepEqual(
      [assigned.kind, assigned.namespace, assigned.account_id],
      ['Role', 'payments', tenant.accountId],
    );
    const nodeTypes = identity.rbac_objects.graph.nodes.map((node: KubeJson) => node.type);
    assert.ok(
      nodeTypes.includes('k8s_service_account') &&
        nodeTypes.includes('role_binding') &&
        nodeTypes.includes('role'),
    );
    assert.equal(identity.risks_summary.total_risk_score, identity.risk_score);
    assert.equal(identity.rbac_objects.created_at, identity.updated_at);
  });

  test('unknown, malformed and other-account ids are 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await get(`${account()}/identities/${id}`);
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], id);
    }
    const otherAccount = await tenant.addAccount();
    const res = await get(`/accounts/${otherAccount}/identities/${everything[0].id}`);
    assert.deepEqual([res.status, res.body.code], [404, 'not_found']);
  });
});

describe('GET /identities/{identity_id}/risks/{risk_type}', () => {
  test('the risks of one type, one per scope, paged; open first', async () => {
    const tenant2 = await createTenant(t);
    const c = await createCluster(t, tenant2.adminToken, tenant2.accountId, 'prod');
    const reader = clusterRole('secret-reader', [{ resources: ['secrets'], verbs: ['get'] }]);
    await pushObjects(t, tenant2, c.id, [
      serviceAccount('ops', 'bot'),
      reader,
      ...['a', 'b', 'c'].map((ns) =>
        roleBinding(ns, 'bot-secrets', { kind: 'ClusterRole', name: 'secret-reader' }, [
          { kind: 'ServiceAccount', name: 'bot', namespace: 'ops' },
        ]),
      ),
    ]);
    const bot = await identityNamed(t, tenant2, 'k8s_service_account', 'ops', 'bot');
    const url = `/accounts/${tenant2.accountId}/identities/${bot.id}/risks/secrets_read`;
    const page1 = await get(`${url}?page_size=2`, tenant2.adminToken);
    assert.equal(page1.status, 200, page1.text);
    assert.deepEqual([page1.body.total_count, page1.body.page_count, page1.body.entries.length], [3, 2, 2]);
    const page2 = await get(`${url}?page_size=2&page=2`, tenant2.adminToken);
    const scopes = [...page1.body.entries, ...page2.body.entries]
      .map((risk: KubeJson) => risk.namespace)
      .sort();
    assert.deepEqual(scopes, ['a', 'b', 'c']);
    assert.ok(
      [...page1.body.entries, ...page2.body.entries].every((risk: KubeJson) => risk.type === 'secrets_read'),
    );
    const none = await get(
      `/accounts/${tenant2.accountId}/identities/${bot.id}/risks/cluster_admin`,
      tenant2.adminToken,
    );
    assert.deepEqual([none.status, none.body.total_count, none.body.entries], [200, 0, []]);
    const unknown = await get(
      `/accounts/${tenant2.accountId}/identities/${bot.id}/risks/secrets`,
      tenant2.adminToken,
    );
    assert.equal(unknown.status, 404);
    const other = await get(`${account()}/identities/${bot.id}/risks/secrets_read`);
    assert.equal(other.status, 404, 'an identity of another tenant');
    const bad = await get(`${url}?page_size=0`, tenant2.adminToken);
    assert.equal(bad.status, 400);
  });
});

describe('GET /identities/reports/latest', () => {
  test('counts agree with the list; timestamped with year, month, day and hour', async () => {
    const res = await get(`${account()}/identities/reports/latest`);
    assert.equal(res.status, 200, res.text);
    const report = res.body;
    const live = everything.filter((i) => i.deleted_at === null);
    const open = (i: KubeJson) => i.risks.filter((risk: KubeJson) => risk.deleted_at === null);
    assert.equal(report.account_id, tenant.accountId);
    assert.equal(report.identities_count, live.length);
    assert.equal(report.identities_with_risks_count, live.filter((i) => open(i).length > 0).length);
    assert.equal(
      report.risks_count,
      live.reduce((sum, i) => sum + open(i).length, 0),
    );
    assert.deepEqual(report.identity_counts_per_source, { [cluster.id]: live.length });
    for (const level of ['Critical', 'High', 'Medium', 'Low', 'Negligible', 'Unspecified']) {
      assert.equal(
        report.identity_counts_per_level[level],
        live.filter((i) => i.risk_level === level).length,
        level,
      );
    }
    assert.deepEqual(Object.keys(report.identity_counts_per_type), [
      'k8s_group',
      'k8s_service_account',
      'k8s_user',
    ]);
    const at = new Date(report.created_at);
    assert.deepEqual(
      [report.year, report.month, report.day, report.hour],
      [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate(), at.getUTCHours()],
    );
    const expectedAverage =
      Math.round((live.reduce((s, i) => s + i.risk_score, 0) / live.length) * 100) / 100;
    assert.equal(report.avg_risk_score, expectedAverage);
  });

  test('an account without any ingestion gets a zeroed report', async () => {
    const empty = await createTenant(t);
    const res = await get(`/accounts/${empty.accountId}/identities/reports/latest`, empty.adminToken);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.identities_count, res.body.risks_count, res.body.avg_risk_score, res.body.account_id],
      [0, 0, 0, empty.accountId],
    );
    assert.equal(res.body.identity_counts_per_level.Critical, 0);
    assert.deepEqual(res.body.identity_counts_per_source, {});
  });

  test('per account: another account of the tenant has its own report and list', async () => {
    const otherAccount = await tenant.addAccount();
    const c = await createCluster(t, tenant.adminToken, otherAccount, 'other');
    await pushObjects(
      t,
      tenant,
      c.id,
      [clusterRoleBinding('x', 'cluster-admin', [{ kind: 'User', name: 'mallory' }])],
      '',
      otherAccount,
    );
    const report = await get(`/accounts/${otherAccount}/identities/reports/latest`);
    assert.equal(report.body.identities_count, 1);
    const list = await get(`/accounts/${otherAccount}/identities`);
    assert.deepEqual(
      list.body.entries.map((i: KubeJson) => i.name),
      ['mallory'],
    );
    const mine = await get(`${account()}/identities?q=mallory`);
    assert.equal(mine.body.total_count, 0);
    // An account-scoped key of the other account cannot read this account's identities.
    const scoped = await tenant.addUser([{ level: 'tenant', role: 'viewer' }], {
      keyAccountId: otherAccount,
    });
    const denied = await get(`${account()}/identities`, scoped.token);
    assert.equal(denied.status, 404);
    const allowed = await get(`/accounts/${otherAccount}/identities/filters`, scoped.token);
    assert.equal(allowed.status, 200);
  });
});
