/**
 * GET /accounts/{account_id}/container_runtime_insights/http_requests (#5): aggregation by path
 * template, personal data (positives and near misses) without the matched values, trusted IP
 * prefixes, filters, search and paging.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import {
  getJson,
  httpRequest,
  pushOk,
  putSettings,
  WEB,
  type WorkloadRef,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const API: WorkloadRef = {
  ...WEB,
  workload: 'api',
  pod: 'api-5d4f8b7c9-q2w3e',
  containerId: `containerd://${'c3'.repeat(32)}`,
};

/** Request target -> the template and labels it must be stored as. */
const PII_POSITIVES: [string, string, string[]][] = [
  ['/api/customers?email=jane.doe%40example.com', '/api/customers?email={email}', ['email']],
  ['/api/customers/jane.doe@example.com/orders', '/api/customers/{email}/orders', ['email']],
  ['/api/pay?card=4111%201111%201111%201111', '/api/pay?card={credit_card}', ['credit_card']],
  ['/api/cards/4111-1111-1111-1111', '/api/cards/{credit_card}', ['credit_card']],
  ['/api/lookup?ssn=123-45-6789', '/api/lookup?ssn={us_ssn}', ['us_ssn']],
  ['/api/contact?phone=4155550132', '/api/contact?phone={phone_number}', ['phone_number']],
  [
    '/api/auth?access_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
    '/api/auth?access_token={bearer_token}',
    ['bearer_token'],
  ],
  ['/api/keys?api_key=abcd1234', '/api/keys?api_key={api_key}', ['api_key']],
];
const NEAR_MISSES: [string, string][] = [
  ['/api/assets/logo@2x.png', '/api/assets/logo@2x.png'],
  ['/users/user@localhost', '/users/user@localhost'],
  ['/api/cards/4111111111111112', '/api/cards/{id}'],
  ['/api/reports/2024-05-01', '/api/reports/{date}'],
  ['/api/items?page_token=abcdefghijkl', '/api/items?page_token={value}'],
  ['/api/lookup?id=4155550132', '/api/lookup?id={value}'],
];
const RAW_VALUES = ['jane.doe', '4111', '123-45-6789', '4155550132', 'eyJhbGci', 'abcd1234'];
/**
 * Ids are random UUIDs, and one holds `4111` or `abcd1234` now and then; none of the raw values
 * has a UUID's shape, so the search for them skips the ids instead of failing on them.
 */
const withoutIds = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>');

describe('HTTP request observations', () => {
  let token: string;
  let accountId: string;
  let a: string;
  let b: string;
  const list = (query = '') =>
    getJson(t, token, `/accounts/${accountId}/container_runtime_insights/http_requests${query}`);
  const paths = (body: { entries: { path: string }[] }) => body.entries.map((e) => e.path).sort();

  before(async () => {
    const tenant = await createTenant(t);
    token = tenant.adminToken;
    accountId = tenant.accountId;
    a = (await createCluster(t, token, accountId, 'a')).id;
    b = (await createCluster(t, token, accountId, 'b')).id;
    await putSettings(
      t,
      { token, accountId },
      {
        trusted_ip_prefixes: [
          { cidr: '10.96.0.0/12', name: 'services', description: 'Cluster services' },
          { cidr: '198.51.100.0/28', name: 'payments-gateway' },
        ],
      },
    );
    const external = (address: string) => ({ address, port: 443, hostname: 'pay.example.net' });
    await pushOk(t, { token, accountId, clusterId: a }, [
      httpRequest(WEB, 1, { path: '/api/orders/42' }),
      httpRequest(WEB, 2, { path: '/api/orders/7f1c2a3b-9d4e-4f5a-8b6c-1d2e3f4a5b6c' }),
      ...PII_POSITIVES.map(([target], i) => httpRequest(WEB, 10 + i, { method: 'POST', path: target })),
      ...NEAR_MISSES.map(([target], i) => httpRequest(WEB, 30 + i, { path: target })),
      httpRequest(WEB, 50, { scheme: 'https', path: '/v1/charges', destination: external('198.51.100.5') }),
      httpRequest(WEB, 51, { scheme: 'https', path: '/v1/refunds', destination: external('203.0.113.7') }),
    ]);
    await pushOk(t, { token, accountId, clusterId: b }, [httpRequest(API, 60, { path: '/healthz' })]);
    // A later push of the same request widens its observation instead of adding one.
    await pushOk(t, { token, accountId, clusterId: a }, [httpRequest(WEB, 90, { path: '/api/orders/1001' })]);
  });

  test('requests aggregate per path template, with first and last seen and a count', async () => {
    const body = await list('?filters=path:/api/orders/{id}');
    assert.equal(body.total_count, 1);
    const [orders] = body.entries;
    assert.equal(orders.request_count, 3);
    assert.equal(orders.first_seen_at, '2025-06-01T08:00:01.000Z');
    assert.equal(orders.last_seen_at, '2025-06-01T08:01:30.000Z');
    assert.deepEqual(
      [orders.source_workload_name, orders.destination_workload_name, orders.destination_port],
      ['web', 'api', 8000],
    );
  });

  test('personal data is labelled and replaced by its placeholder', async () => {
    const body = await list('?filters=has_pii:true&limit=1000');
    const found = Object.fromEntries(
      body.entries.map((e: { path: string; pii_labels: string[] }) => [e.path, e.pii_labels]),
    );
    assert.deepEqual(found, Object.fromEntries(PII_POSITIVES.map(([, path, labels]) => [path, labels])));
  });

  test('near misses are not personal data', async () => {
    const body = await list('?filters=has_pii:false&limit=1000');
    const templates = paths(body);
    for (const [, expected] of NEAR_MISSES) assert.ok(templates.includes(expected), expected);
    assert.ok(body.entries.every((e: { pii_labels: string[] }) => e.pii_labels.length === 0));
  });

  test('no matched value is stored, in the API or in the table', async () => {
    const served = withoutIds(JSON.stringify(await list('?limit=1000')));
    const { rows } = await t.db.query('select * from runtime_http_observations where account_id = $1', [
      accountId,
    ]);
    const stored = withoutIds(JSON.stringify(rows));
    for (const value of RAW_VALUES) {
      assert.ok(!served.includes(value), value);
      assert.ok(!stored.includes(value), value);
    }
  });

  test('destinations in a trusted prefix say which one; description falls back to the name', async () => {
    const body = await list('?filters=scheme:https');
    const byPath = Object.fromEntries(body.entries.map((e: { path: string }) => [e.path, e]));
    assert.deepEqual(
      [
        byPath['/v1/charges'].trusted_ip,
        byPath['/v1/charges'].trusted_ip_prefix,
        byPath['/v1/charges'].trusted_ip_description,
      ],
      [true, '198.51.100.0/28', 'payments-gateway'],
    );
    assert.deepEqual(
      [byPath['/v1/refunds'].trusted_ip, byPath['/v1/refunds'].trusted_ip_prefix],
      [false, ''],
    );
    const internal = (await list('?filters=path:/healthz')).entries[0];
    assert.equal(internal.trusted_ip_description, 'Cluster services');
  });

  test('filters: exact match, OR within a key, AND across keys', async () => {
    assert.equal((await list('?filters=method:POST')).total_count, PII_POSITIVES.length);
    assert.equal((await list(`?filters=cluster_id:${b}`)).total_count, 1);
    assert.deepEqual(paths(await list('?filters=source_workload_name:api')), ['/healthz']);
    assert.equal(
      (await list('?filters=source_workload_namespace:shop')).total_count,
      (await list()).total_count,
    );
    assert.equal(
      (await list('?filters=destination_workload_name:api,method:GET')).total_count,
      1 + NEAR_MISSES.length + 1,
      'orders, the near misses and /healthz',
    );
    assert.equal((await list('?filters=destination_workload_namespace:shop,scheme:https')).total_count, 0);
    assert.equal((await list('?filters=scheme:https,scheme:http')).total_count, (await list()).total_count);
    assert.equal((await list('?filters=path:/api/orders/42')).total_count, 0, 'raw paths are not stored');
  });

  test('cluster_ids narrows by cluster; the cluster_id filter and cluster_ids both apply', async () => {
    const all = (await list()).total_count;
    assert.equal((await list(`?cluster_ids=${a},${b}`)).total_count, all);
    assert.equal((await list(`?cluster_ids=${a}`)).total_count, all - 1);
    assert.equal((await list(`?cluster_ids=${a}&filters=cluster_id:${b}`)).total_count, 0);
  });

  test('q searches paths, hostnames and workloads, case-insensitively and literally', async () => {
    assert.deepEqual(paths(await list('?q=ORDERS')), ['/api/customers/{email}/orders', '/api/orders/{id}']);
    assert.deepEqual(paths(await list('?q=pay.example')), ['/v1/charges', '/v1/refunds']);
    assert.equal((await list('?q=%25')).total_count, 0, 'a % is a literal percent sign');
  });

  test('most recently seen first; offset paging covers every row once', async () => {
    const all = await list('?limit=1000');
    const seen = all.entries.map((e: { last_seen_at: string }) => e.last_seen_at);
    assert.deepEqual(seen, [...seen].sort().reverse());
    const ids: string[] = [];
    for (let offset = 0; offset < all.total_count; offset += 4) {
      const page = await list(`?limit=4&offset=${offset}`);
      assert.equal(page.total_count, all.total_count);
      assert.equal(page.has_more, offset + 4 < all.total_count);
      ids.push(...page.entries.map((e: { id: string }) => e.id));
    }
    assert.deepEqual(
      ids,
      all.entries.map((e: { id: string }) => e.id),
    );
    assert.equal((await list('')).entries.length, Math.min(100, all.total_count), 'limit defaults to 100');
  });

  test('bad parameters are 400', async () => {
    for (const query of [
      '?filters=status:200',
      '?filters=has_pii:maybe',
      '?filters=cluster_id:nope',
      '?cluster_ids=nope',
      '?limit=0',
    ]) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${accountId}/container_runtime_insights/http_requests${query}`,
        token,
      });
      assert.equal(res.status, 400, query);
    }
  });
});
