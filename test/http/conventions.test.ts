/**
 * The conventions every endpoint shares (DESIGN.md section 5): the error body for unknown routes
 * and methods, body limits and content types, response headers, query parameter habits of
 * existing clients, the per-token rate limit, and the operations endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createTenant,
  startTestApp,
  type TestApp,
  type TestResponse,
  type TestTenant,
} from '../support/harness.js';

const ONE_MIB = 1024 * 1024;

function assertError(res: TestResponse, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.body.code, code);
  assert.equal(res.body.status, status);
  assert.equal(res.body.request_id, res.headers['x-request-id']);
}

describe('shared conventions', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let rolesUrl: string;
  before(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
    rolesUrl = `/accounts/${tenant.accountId}/users/${tenant.admin.userId}/roles`;
  });
  after(() => t.close());

  const adminRoles = async () =>
    (await t.request({ method: 'GET', url: rolesUrl, token: tenant.adminToken })).body.roles;

  test('an unknown route -> 404 not_found, with or without a token', async () => {
    for (const token of [undefined, tenant.adminToken]) {
      const res = await t.request({ method: 'GET', url: '/no/such/route', ...(token ? { token } : {}) });
      assertError(res, 404, 'not_found');
    }
  });

  test('ids too long to name anything and broken URL encoding still get the ApiError and headers', async () => {
    const long = 'x'.repeat(300);
    for (const url of [
      `/accounts/${long}`,
      `/accounts/${'y'.repeat(2000)}`,
      `/accounts/access_keys/${long}`,
      `/accounts/${tenant.accountId}/users/${long}/roles`,
    ]) {
      const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
      assertError(res, 404, 'not_found');
      assert.equal(res.headers['x-api-version'], '0.0.21');
    }
    const broken = await t.request({ method: 'GET', url: '/accounts/%E0%A4%A', token: tenant.adminToken });
    assertError(broken, 400, 'bad_request');
    assert.equal(broken.headers['x-api-version'], '0.0.21');
  });

  test('a known path with another method -> 405 method_not_allowed with Allow', async () => {
    const cases: [TestResponse, string][] = [
      [
        await t.request({ method: 'DELETE', url: `/accounts/${tenant.accountId}`, token: tenant.adminToken }),
        'GET',
      ],
      [
        await t.request({ method: 'PATCH', url: '/accounts/access_keys', token: tenant.adminToken }),
        'GET, POST',
      ],
      [await t.request({ method: 'POST', url: rolesUrl, token: tenant.adminToken, body: {} }), 'GET, PUT'],
      [await t.request({ method: 'GET', url: '/authentication/authenticate' }), 'POST'],
    ];
    for (const [res, allow] of cases) {
      assertError(res, 405, 'method_not_allowed');
      assert.equal(res.headers.allow, allow);
    }
  });

  test('a JSON body over 1 MiB -> 413 payload_too_large, nothing changed', async () => {
    const before = await adminRoles();
    const padding = 'x'.repeat(ONE_MIB);
    const big = JSON.stringify({ roles: [{ level: 'tenant', name: 'viewer', account_name: padding }] });
    const res = await t.request({
      method: 'PUT',
      url: rolesUrl,
      token: tenant.adminToken,
      payload: big,
      headers: { 'content-type': 'application/json' },
    });
    assertError(res, 413, 'payload_too_large');
    assert.deepEqual(await adminRoles(), before);
    const login = await t.request({
      method: 'POST',
      url: '/authentication/authenticate',
      payload: JSON.stringify({ access_key_id: 'pak_x', secret_key: padding }),
      headers: { 'content-type': 'application/json' },
    });
    assertError(login, 413, 'payload_too_large');
  });

  test('an unsupported content type on a JSON route -> 415, nothing changed', async () => {
    const before = await adminRoles();
    const body = JSON.stringify({ roles: [] });
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await t.request({
        method: 'PUT',
        url: rolesUrl,
        token: tenant.adminToken,
        payload: body,
        headers: { 'content-type': type },
      });
      assertError(res, 415, 'unsupported_media_type');
    }
    assert.deepEqual(await adminRoles(), before);
  });

  test('every response carries x-api-version 0.0.21 and its own x-request-id', async () => {
    const responses = [
      await t.request({ method: 'GET', url: '/accounts', token: tenant.adminToken }),
      await t.request({ method: 'GET', url: '/accounts' }),
      await t.request({ method: 'GET', url: '/nowhere' }),
      await t.request({ method: 'GET', url: '/healthz' }),
      await t.request({ method: 'GET', url: '/metrics' }),
    ];
    const ids = new Set<string>();
    for (const res of responses) {
      assert.equal(res.headers['x-api-version'], '0.0.21');
      const id = String(res.headers['x-request-id']);
      assert.match(id, /^[0-9a-f-]{36}$/);
      if (res.status >= 400) assert.equal(res.body.request_id, id);
      ids.add(id);
    }
    assert.equal(ids.size, responses.length);
  });

  test('an empty query parameter means "not given"', async () => {
    const plain = await t.request({ method: 'GET', url: '/accounts', token: tenant.adminToken });
    const empty = await t.request({
      method: 'GET',
      url: '/accounts?limit=&offset=&parent_id=',
      token: tenant.adminToken,
    });
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body, plain.body);
    const keys = await t.request({
      method: 'GET',
      url: '/accounts/access_keys?limit=',
      token: tenant.adminToken,
    });
    assert.equal(keys.status, 200);
    assert.equal(keys.body.entries.length, keys.body.total_count);
  });

  test('a duplicated parameter -> 400 naming it, never 500', async () => {
    for (const [url, field] of [
      ['/accounts?limit=1&limit=2', 'limit'],
      ['/accounts?offset=0&offset=1', 'offset'],
      [`/accounts?parent_id=${tenant.tenantId}&parent_id=${tenant.tenantId}`, 'parent_id'],
      [`/accounts/${tenant.accountId}/users?limit=5&limit=5`, 'limit'],
    ] as const) {
      const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
      assertError(res, 400, 'validation_failed');
      assert.equal(res.body.validation_details[0].field, field, url);
      assert.equal(res.body.validation_details[0].param, 'query', url);
    }
  });

  test('/healthz and /readyz answer 200; /metrics is Prometheus text with route labels', async () => {
    assert.deepEqual((await t.request({ method: 'GET', url: '/healthz' })).body, { status: 'ok' });
    assert.deepEqual((await t.request({ method: 'GET', url: '/readyz' })).body, { status: 'ready' });
    await t.request({ method: 'GET', url: `/accounts/${tenant.accountId}`, token: tenant.adminToken });
    const res = await t.request({ method: 'GET', url: '/metrics' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.text, /# TYPE posture_http_requests_total counter/);
    // The route pattern, never the raw URL with its ids.
    assert.match(
      res.text,
      /^posture_http_requests_total\{method="GET",route="\/accounts\/:account_id",status_code="200"\} \d+$/m,
    );
    assert.ok(!res.text.includes(tenant.accountId), 'no ids in metric labels');
  });
});

describe('per-token rate limit', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: 5 });
  });
  after(() => t.close());

  test('the 6th request of one token in a minute -> 429 with Retry-After and RateLimit headers', async () => {
    const tenant = await createTenant(t);
    const other = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const call = (token: string) => t.request({ method: 'GET', url: '/accounts', token });
    for (let i = 1; i <= 5; i++) {
      const res = await call(tenant.adminToken);
      assert.equal(res.status, 200, `request ${i}`);
      assert.equal(res.headers['ratelimit-limit'], '5');
      assert.equal(res.headers['ratelimit-remaining'], String(5 - i));
    }
    const limited = await call(tenant.adminToken);
    assertError(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.equal(limited.headers['ratelimit-limit'], '5');
    assert.equal(limited.headers['ratelimit-remaining'], '0');
    assert.ok(Number(limited.headers['ratelimit-reset']) > 0);

    const otherToken = await call(other.token);
    assert.equal(otherToken.status, 200, 'another token has its own budget');
    // Public GETs (health, metrics) are never limited.
    for (let i = 0; i < 7; i++)
      assert.equal((await t.request({ method: 'GET', url: '/healthz' })).status, 200);
  });
});
