/** The findings endpoints: filters, time window, limits, order, scope and the status change. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster, push } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { deployment, pod } from './test-objects.js';

let t: TestApp;
let tenant: TestTenant;
let groupsUrl: string;

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'api');
  groupsUrl = `/accounts/${tenant.accountId}/unified_findings/groups`;
  for (const object of [deployment({ version: '1', privileged: true }), pod(null, 'debug')]) {
    const res = await push(t, tenant.adminToken, tenant.accountId, cluster.id, object);
    assert.equal(res.status, 200, res.text);
  }
});
after(() => t.close());

interface Group {
  id: string;
  rule_id: string;
  severity: string;
  status: string;
  type: string;
  source_kind: string;
  source_type: string;
  source_namespace: string;
  last_seen: string;
  findings?: unknown[];
}

async function list(query: string, token = tenant.adminToken) {
  return t.request({ method: 'GET', url: `${groupsUrl}${query}`, token });
}
async function listOk(query: string): Promise<Group[]> {
  const res = await list(query);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

describe('GET unified_findings/groups', () => {
  test('a bare array, newest last_seen first then id, without findings', async () => {
    const groups = await listOk('');
    assert.ok(groups.length >= 8);
    for (let i = 1; i < groups.length; i++) {
      const [a, b] = [groups[i - 1] as Group, groups[i] as Group];
      assert.ok(a.last_seen > b.last_seen || (a.last_seen === b.last_seen && a.id > b.id), 'order');
    }
    assert.ok(groups.every((g) => g.findings === undefined));
    // The pod was pushed after the Deployment: its groups were last seen later.
    assert.equal(groups[0]?.source_kind, 'Pod');
  });

  test('filters: one key narrows, the same key twice is OR, different keys AND', async () => {
    const all = await listOk('');
    const critical = await listOk('?filters=severity:critical');
    assert.deepEqual(
      critical.map((g) => g.id).sort(),
      all
        .filter((g) => g.severity === 'critical')
        .map((g) => g.id)
        .sort(),
    );
    assert.ok(critical.length === 2, 'K8S-001 on the Deployment and on the pod');
    const either = await listOk('?filters=rule_id:K8S-001,rule_id:K8S-011');
    assert.deepEqual([...new Set(either.map((g) => g.rule_id))].sort(), ['K8S-001', 'K8S-011']);
    const both = await listOk('?filters=rule_id:K8S-001,source_kind:Pod');
    assert.deepEqual(
      both.map((g) => [g.rule_id, g.source_kind]),
      [['K8S-001', 'Pod']],
    );
    for (const [key, value] of [
      ['type', 'k8s_misconfiguration'],
      ['source_type', 'kubeobject'],
      ['source_namespace', 'shop'],
      ['status', 'open'],
    ] as const) {
      const rows = await listOk(`?filters=${key}:${value}`);
      assert.equal(rows.length, all.filter((g) => g[key] === value).length, key);
    }
    assert.deepEqual(await listOk('?filters=source_namespace:elsewhere'), []);
  });

  test('unknown filter keys and values outside the closed vocabularies are 400', async () => {
    for (const filters of ['name:x', 'severity:CRITICAL', 'status:resolved', 'nokey']) {
      const res = await list(`?filters=${filters}`);
      assert.equal(res.status, 400, filters);
      assert.equal(res.body.validation_details[0].field, 'filters');
    }
  });

  test('from/to bound last_seen; bad times are 400', async () => {
    assert.equal((await listOk('?from=now-1h')).length, (await listOk('')).length);
    assert.deepEqual(await listOk('?to=2000-01-01T00:00:00Z'), []);
    assert.deepEqual(await listOk('?from=now'), [], 'every group was last seen before now');
    for (const query of ['?from=yesterday', '?from=now&to=now-1h']) {
      const res = await list(query);
      assert.equal(res.status, 400, query);
    }
  });

  test('limit: 1..1000', async () => {
    assert.equal((await listOk('?limit=1')).length, 1);
    for (const limit of ['0', '1001', 'x']) assert.equal((await list(`?limit=${limit}`)).status, 400, limit);
  });

  test('another tenant gets 404, a viewer may read', async () => {
    const other = await createTenant(t);
    assert.equal((await list('', other.adminToken)).status, 404);
    const viewer = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    assert.equal((await list('', viewer.token)).status, 200);
  });
});

describe('GET unified_findings/groups/{group_id} (#24)', () => {
  async function podGroup(): Promise<Group> {
    const [group] = await listOk('?filters=source_kind:Pod,rule_id:K8S-010');
    assert.ok(group);
    return group;
  }

  test('the group with its findings; limit is digits only', async () => {
    // The pod's missing limits: one finding per container, here one.
    const group = await podGroup();
    const res = await t.request({ method: 'GET', url: `${groupsUrl}/${group.id}`, token: tenant.adminToken });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, group.id);
    assert.equal(res.body.findings.length, 1);
    assert.equal(res.body.findings[0].rule_id, 'K8S-010');
    assert.equal(res.body.findings[0].tenant_id, tenant.tenantId);
    assert.match(res.body.group_id, /^[0-9a-f]{64}$/);

    const limited = await t.request({
      method: 'GET',
      url: `${groupsUrl}/${group.id}?limit=1`,
      token: tenant.adminToken,
    });
    assert.equal(limited.status, 200);
    for (const limit of ['abc', '-1', '1.5', '0', '1001', '1e2']) {
      const bad = await t.request({
        method: 'GET',
        url: `${groupsUrl}/${group.id}?limit=${limit}`,
        token: tenant.adminToken,
      });
      assert.equal(bad.status, 400, limit);
      assert.equal(bad.body.validation_details[0].field, 'limit');
    }
  });

  test('unknown ids, malformed ids and other tenants are 404', async () => {
    const group = await podGroup();
    const other = await createTenant(t);
    const cases = [
      { url: `${groupsUrl}/00000000-0000-4000-8000-000000000000`, token: tenant.adminToken },
      { url: `${groupsUrl}/not-a-uuid`, token: tenant.adminToken },
      { url: `/accounts/${other.accountId}/unified_findings/groups/${group.id}`, token: other.adminToken },
    ];
    for (const { url, token } of cases) {
      const res = await t.request({ method: 'GET', url, token });
      assert.equal(res.status, 404, url);
    }
  });
});

describe('PUT unified_findings/groups/{group_id}/status', () => {
  test('editors set the status (who and when recorded); viewers get 403; bad bodies 400', async () => {
    const [group] = await listOk('?filters=rule_id:K8S-011,source_kind:Pod');
    assert.ok(group);
    const url = `${groupsUrl}/${group.id}/status`;
    const viewer = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const denied = await t.request({ method: 'PUT', url, token: viewer.token, body: { status: 'closed' } });
    assert.equal(denied.status, 403);
    assert.equal(
      (await listOk('?filters=rule_id:K8S-011,source_kind:Pod'))[0]?.status,
      'open',
      'nothing changed',
    );

    for (const body of [{ status: 'resolved' }, {}, { status: 'closed', note: 'x' }]) {
      const res = await t.request({ method: 'PUT', url, token: tenant.adminToken, body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }

    const editor = await tenant.addUser([{ level: 'tenant', role: 'editor' }]);
    const before = Date.now();
    const res = await t.request({ method: 'PUT', url, token: editor.token, body: { status: 'closed' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'closed');
    assert.equal(res.body.status_changed_by, editor.userId);
    assert.ok(Date.parse(res.body.status_changed_at) >= before - 1000, JSON.stringify(res.body));
    assert.ok(Array.isArray(res.body.findings));
    assert.deepEqual(
      (await listOk('?filters=status:closed')).map((g) => g.id),
      [group.id],
    );

    const other = await createTenant(t);
    const foreign = await t.request({
      method: 'PUT',
      url: `/accounts/${other.accountId}/unified_findings/groups/${group.id}/status`,
      token: other.adminToken,
      body: { status: 'open' },
    });
    assert.equal(foreign.status, 404);
  });
});
