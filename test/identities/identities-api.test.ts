/** #14 identities list: every filter, sort and paging edge, on the sample cluster plus a second cluster. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster, type KubeJson } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  allIdentities,
  clusterRoleBinding,
  listIdentities,
  pushObjects,
  pushSampleWithRbac,
  serviceAccount,
} from './support.js';

let t: TestApp;
let tenant: TestTenant;
let sample: { id: string; name: string };
let staging: { id: string; name: string };
let everything: KubeJson[];
let stagingCreatedAt: string;

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  sample = await pushSampleWithRbac(t, tenant, 'prod');
  staging = await createCluster(t, tenant.adminToken, tenant.accountId, 'staging');
  await new Promise((resolve) => setTimeout(resolve, 5)); // staging identities are created later
  await pushObjects(t, tenant, staging.id, [
    serviceAccount('batch', 'importer'),
    clusterRoleBinding('importer-admin', 'cluster-admin', [
      { kind: 'ServiceAccount', name: 'importer', namespace: 'batch' },
    ]),
  ]);
  everything = await allIdentities(t, tenant);
  stagingCreatedAt = everything.find((identity) => identity.source_id === staging.id)!.created_at;
});
after(() => t.close());

const list = async (query: string) => {
  const res = await listIdentities(t, tenant, query);
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body;
};
const names = (entries: KubeJson[]) =>
  entries.map((identity) => `${identity.type}:${identity.namespace}/${identity.name}`).sort();
/** The identities of `everything` the predicate keeps, named as `names` does. */
const expected = (keep: (identity: KubeJson) => boolean) => names(everything.filter(keep));
const filtered = async (query: string) => names((await list(`?page_size=1000&${query}`)).entries);

describe('GET /accounts/{account_id}/identities: paging and order', () => {
  test('defaults: page 1 of 50, worst first, then id descending', async () => {
    const body = await list('');
    assert.deepEqual([body.page, body.page_size, body.total_count], [1, 50, everything.length]);
    assert.equal(body.page_count, Math.ceil(everything.length / 50));
    assert.equal(body.entries.length, Math.min(50, everything.length));
    assert.deepEqual(
      body.entries.map((identity: KubeJson) => identity.id),
      everything.slice(0, 50).map((identity) => identity.id),
    );
    const keys = everything.map((identity) => [identity.risk_score, identity.id]);
    for (let i = 1; i < keys.length; i++) {
      const [a, b] = [keys[i - 1]!, keys[i]!];
      assert.ok(a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]), `order at ${i}`);
    }
  });

  test('walking pages visits every identity once; a page past the end is empty with true totals', async () => {
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const body = await list(`?page_size=7&page=${page}`);
      assert.equal(body.total_count, everything.length);
      if (body.entries.length === 0) {
        assert.equal(page, body.page_count + 1);
        break;
      }
      seen.push(...body.entries.map((identity: KubeJson) => identity.id));
    }
    assert.deepEqual(
      seen,
      everything.map((identity) => identity.id),
    );
    const past = await list('?page=999');
    assert.deepEqual([past.entries, past.total_count, past.page], [[], everything.length, 999]);
  });

  test('out-of-range paging is a 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['?page=0', 'page'],
      ['?page_size=0', 'page_size'],
      ['?page_size=1001', 'page_size'],
      ['?page=x', 'page'],
    ]) {
      const res = await listIdentities(t, tenant, query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.validation_details[0].field, field, query);
    }
  });

  const SORTS: [string, (identity: KubeJson) => string | number | null][] = [
    ['risk_score', (i) => i.risk_score],
    ['name', (i) => i.name],
    ['namespace', (i) => i.namespace],
    ['type', (i) => i.type],
    ['created_at', (i) => i.created_at],
    ['updated_at', (i) => i.updated_at],
    ['last_used_at', (i) => i.last_used_at],
    ['linked_resources', (i) => i.linked_resources],
  ];
  for (const [field, value] of SORTS) {
    for (const direction of ['asc', 'desc'] as const) {
      test(`sort=${field}:${direction} orders by ${field} then id, nulls last`, async () => {
        const entries: KubeJson[] = (await list(`?page_size=1000&sort=${field}:${direction}`)).entries;
        assert.equal(entries.length, everything.length);
        const sign = direction === 'asc' ? 1 : -1;
        const compare = (a: KubeJson, b: KubeJson) => {
          const [x, y] = [value(a), value(b)];
          if (x === null || y === null) return x === y ? sign * (a.id < b.id ? -1 : 1) : x === null ? 1 : -1;
          if (x !== y) return sign * (x < y ? -1 : 1);
          return sign * (a.id < b.id ? -1 : 1);
        };
        assert.deepEqual(
          entries.map((i) => i.id),
          [...entries].sort(compare).map((i) => i.id),
        );
      });
    }
  }

  test('last_detected_at sorts too; a bare field is ascending; unknown fields and directions are 400', async () => {
    const detected = (await list('?page_size=1000&sort=last_detected_at')).entries as KubeJson[];
    assert.equal(detected.length, everything.length);
    const byName = (await list('?page_size=1000&sort=name')).entries as KubeJson[];
    assert.deepEqual(
      byName.map((i) => i.name),
      [...byName].map((i) => i.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    for (const sort of ['risk_level', 'raw_rbac_objects:asc', 'name:sideways', 'name:asc:desc']) {
      const res = await listIdentities(t, tenant, `?sort=${sort}`);
      assert.equal(res.status, 400, sort);
      assert.equal(res.body.validation_details[0].field, 'sort');
    }
  });
});

describe('GET /accounts/{account_id}/identities: filters', () => {
  test('identity_types, risk_levels, statuses: comma lists are OR, any case for levels', async () => {
    assert.deepEqual(
      await filtered('identity_types=k8s_user'),
      expected((i) => i.type === 'k8s_user'),
    );
    assert.deepEqual(
      await filtered('identity_types=k8s_user,k8s_group'),
      expected((i) => i.type !== 'k8s_service_account'),
    );
    assert.deepEqual(
      await filtered('risk_levels=critical,Low'),
      expected((i) => ['Critical', 'Low'].includes(i.risk_level)),
    );
    assert.deepEqual(
      await filtered('statuses=resolved'),
      expected((i) => i.status === 'resolved'),
    );
    assert.ok((await filtered('statuses=resolved')).length > 0);
  });

  test('usages: used (linked workloads), unused (service accounts without), unknown (users, groups)', async () => {
    assert.deepEqual(
      await filtered('usages=used'),
      expected((i) => i.linked_resources > 0),
    );
    assert.deepEqual(
      await filtered('usages=unused'),
      expected((i) => i.type === 'k8s_service_account' && i.linked_resources === 0),
    );
    assert.deepEqual(
      await filtered('usages=unknown'),
      expected((i) => i.type !== 'k8s_service_account'),
    );
  });

  test('risks, resources and actions match what each identity holds', async () => {
    assert.deepEqual(
      await filtered('risks=secrets_read'),
      expected((i) => i.risk_types.includes('secrets_read')),
    );
    assert.deepEqual(
      await filtered('risks=csr_approve,nodes_proxy'),
      expected((i) => i.risk_types.includes('csr_approve') || i.risk_types.includes('nodes_proxy')),
    );
    const holds = (i: KubeJson, resource: string) =>
      i.rbac_objects.permissions.some((p: { resources: string[] }) => p.resources.includes(resource));
    assert.deepEqual(
      await filtered('resources=secrets'),
      expected((i) => holds(i, 'secrets')),
    );
    assert.deepEqual(
      await filtered('resources=*'),
      expected((i) => holds(i, '*')),
    );
    assert.ok((await filtered('resources=secrets')).length > 0);
    assert.deepEqual(
      await filtered('actions=impersonate'),
      expected((i) => i.actions.includes('impersonate')),
    );
    assert.deepEqual(await filtered('resources=no-such-resource'), []);
  });

  test('identity_sources: cluster ids; different parameters AND together', async () => {
    assert.deepEqual(
      await filtered(`identity_sources=${staging.id}`),
      expected((i) => i.source_id === staging.id),
    );
    assert.deepEqual(
      await filtered(`identity_sources=${staging.id},${sample.id}`),
      expected(() => true),
    );
    assert.deepEqual(await filtered('identity_sources=00000000-0000-4000-8000-000000000000'), []);
    assert.deepEqual(
      await filtered(`identity_sources=${sample.id}&identity_types=k8s_service_account&risks=cluster_admin`),
      expected(
        (i) =>
          i.source_id === sample.id &&
          i.type === 'k8s_service_account' &&
          i.risk_types.includes('cluster_admin'),
      ),
    );
  });

  test('q: case-insensitive substring of name or namespace, matched literally', async () => {
    const contains = (i: KubeJson, text: string) =>
      i.name.toLowerCase().includes(text) || i.namespace.toLowerCase().includes(text);
    assert.deepEqual(
      await filtered('q=INGRESS'),
      expected((i) => contains(i, 'ingress')),
    );
    assert.deepEqual(
      await filtered('q=kube-system'),
      expected((i) => contains(i, 'kube-system')),
    );
    assert.deepEqual(await filtered('q=%25'), []);
    assert.deepEqual(
      await filtered('q=_'),
      expected((i) => contains(i, '_')),
    );
  });

  test('from/to bound created_at; from_last_used_at and to_last_detected_at the other times', async () => {
    assert.deepEqual(
      await filtered(`from=${stagingCreatedAt}`),
      expected((i) => i.created_at >= stagingCreatedAt),
    );
    assert.deepEqual(
      await filtered(`to=${stagingCreatedAt}`),
      expected((i) => i.created_at <= stagingCreatedAt),
    );
    assert.deepEqual(
      await filtered('from=now-1h&to=now'),
      expected(() => true),
    );
    assert.deepEqual(await filtered('from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z'), []);
    const used = everything
      .filter((i) => i.last_used_at !== null)
      .map((i) => i.last_used_at)
      .sort();
    const middle = used[Math.floor(used.length / 2)];
    assert.deepEqual(
      await filtered(`from_last_used_at=${middle}`),
      expected((i) => i.last_used_at !== null && i.last_used_at >= middle),
    );
    assert.deepEqual(
      await filtered('to_last_detected_at=now'),
      expected((i) => i.risks.length > 0),
    );
    assert.deepEqual(await filtered('to_last_detected_at=2000-01-01T00:00:00Z'), []);
  });

  test('empty parameters mean "not given"', async () => {
    const empty = await list('?q=&identity_types=&risks=&resources=&statuses=&sort=&from=&identity_sources=');
    assert.equal(empty.total_count, everything.length);
  });

  test('bad values are 400s naming the parameter', async () => {
    for (const [query, field] of [
      ['risk_levels=Severe', 'risk_levels'],
      ['identity_types=k8s_robot', 'identity_types'],
      ['statuses=closed', 'statuses'],
      ['usages=rarely', 'usages'],
      ['risks=secrets', 'risks'],
      ['identity_sources=prod', 'identity_sources'],
      ['from=yesterday', 'from'],
      ['to_last_detected_at=soon', 'to_last_detected_at'],
      ['from_last_used_at=2026-13-01T00:00:00Z', 'from_last_used_at'],
      ['from=now&to=now-1d', 'from'],
    ]) {
      const res = await listIdentities(t, tenant, `?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.validation_details[0].field, field, query);
    }
  });
});
