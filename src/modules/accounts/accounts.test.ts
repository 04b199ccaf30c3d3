import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  createTenant,
  startTestApp,
  type TestApp,
  type TestResponse,
  type TestTenant,
} from '../../../test/support/harness.js';

const RFC3339_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
/** The tenant's accounts in list order (by name, then id). */
let expectedOrder: string[];

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);
  // Names out of creation order, so the list order is the name order, not insertion order.
  const named = [['main', tenant.accountId]];
  for (const name of ['delta', 'alpha', 'echo', 'charlie']) named.push([name, await tenant.addAccount(name)]);
  expectedOrder = named.sort(([a], [b]) => a!.localeCompare(b!)).map(([, id]) => id!);
});
after(() => t.close());

const get = (url: string, token = tenant.adminToken) => t.request({ method: 'GET', url, token });
const ids = (res: TestResponse): string[] => res.body.entries.map((entry: { id: string }) => entry.id);

describe('GET /accounts', () => {
  test("lists the caller's tenant, with or without parent_id = the tenant id", async () => {
    const plain = await get('/accounts');
    assert.equal(plain.status, 200);
    assert.deepEqual(ids(plain), expectedOrder);
    assert.equal(plain.body.total_count, 5);
    assert.equal(plain.body.has_more, false);
    const main = plain.body.entries.find((a: { id: string }) => a.id === tenant.accountId);
    assert.deepEqual(Object.keys(main).sort(), ['created_at', 'id', 'name', 'parent_id']);
    assert.equal(main.name, 'main');
    assert.equal(main.parent_id, tenant.tenantId);
    assert.match(main.created_at, RFC3339_MS_UTC);

    const byParent = await get(`/accounts?parent_id=${tenant.tenantId}`);
    assert.deepEqual(byParent.body, plain.body);
  });

  test("another tenant's id or a garbage parent_id -> an empty list, not an error", async () => {
    for (const parent of [other.tenantId, 'garbage', '00000000-0000-4000-8000-000000000000']) {
      const res = await get(`/accounts?parent_id=${parent}`);
      assert.equal(res.status, 200, parent);
      assert.deepEqual(res.body, { entries: [], has_more: false, total_count: 0 });
    }
  });

  test('a user with account roles lists only those accounts; an account key only its account', async () => {
    const [, second, third] = expectedOrder;
    const user = await tenant.addUser([
      { level: 'account', accountId: second!, role: 'viewer' },
      { level: 'account', accountId: third!, role: 'admin' },
    ]);
    assert.deepEqual(ids(await get('/accounts', user.token)), [second, third]);
    const keyed = await tenant.addUser([{ level: 'tenant', role: 'viewer' }], { keyAccountId: third! });
    const res = await get(`/accounts?parent_id=${tenant.tenantId}`, keyed.token);
    assert.deepEqual(ids(res), [third]);
    assert.equal(res.body.total_count, 1);
  });

  test('limit and offset page through every account once; totals are true past the end', async () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const res = await get(`/accounts?limit=2&offset=${offset}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.total_count, 5);
      seen.push(...ids(res));
      assert.equal(res.body.has_more, seen.length < 5, `offset ${offset}`);
      if (!res.body.has_more) break;
    }
    assert.deepEqual(seen, expectedOrder);
    const past = await get('/accounts?offset=7');
    assert.deepEqual(past.body, { entries: [], has_more: false, total_count: 5 });
  });

  test('limit 0, 1001, -1 or abc and offset -1 -> 400 naming the parameter', async () => {
    for (const [query, field, code] of [
      ['limit=0', 'limit', 'out_of_range'],
      ['limit=1001', 'limit', 'out_of_range'],
      ['limit=-1', 'limit', 'out_of_range'],
      ['limit=abc', 'limit', 'invalid_type'],
      ['offset=-1', 'offset', 'out_of_range'],
    ]) {
      const res = await get(`/accounts?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(res.body.validation_details, [
        { code, field, message: res.body.validation_details[0].message, param: 'query' },
      ]);
    }
    assert.equal((await get('/accounts?limit=1000')).status, 200);
  });
});

describe('GET /accounts/{account_id}', () => {
  test('the account, as in the list', async () => {
    const res = await get(`/accounts/${tenant.accountId}`);
    assert.equal(res.status, 200);
    const listed = (await get('/accounts')).body.entries.find(
      (a: { id: string }) => a.id === tenant.accountId,
    );
    assert.deepEqual(res.body, listed);
  });

  test("another tenant's account, a garbage id and a missing uuid -> the same 404", async () => {
    const answers = await Promise.all(
      [other.accountId, 'garbage', '00000000-0000-4000-8000-000000000000'].map((id) =>
        get(`/accounts/${id}`),
      ),
    );
    for (const res of answers) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'not_found');
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message', 'request_id', 'status']);
      assert.equal(res.body.message, answers[0]?.body.message);
    }
    // The other tenant still sees its own account: the 404 is about scope, not existence.
    assert.equal((await get(`/accounts/${other.accountId}`, other.adminToken)).status, 200);
  });

  test('an account the user has no role on -> 404; a viewer of it -> 200', async () => {
    const [first, second] = expectedOrder;
    const user = await tenant.addUser([{ level: 'account', accountId: first!, role: 'viewer' }]);
    assert.equal((await get(`/accounts/${first}`, user.token)).status, 200);
    assert.equal((await get(`/accounts/${second}`, user.token)).status, 404);
  });
});

// requireAccount keeps account rows in process memory (account-cache.ts). Each test first makes
// the row cached by a caller who may see it, then asks as one who may not.
describe('the account cache answers no caller the database would not', () => {
  test("another tenant's account stays 404 after its own tenant's caller cached it", async () => {
    assert.equal((await get(`/accounts/${other.accountId}`, other.adminToken)).status, 200);
    for (const url of [`/accounts/${other.accountId}`, `/accounts/${other.accountId}/clusters`]) {
      const res = await get(url);
      assert.equal(res.status, 404, url);
      assert.equal(res.body.code, 'not_found');
    }
    assert.equal((await get(`/accounts/${other.accountId}`, other.adminToken)).status, 200);
  });

  test('an account-scoped key of account A gets 404 for account B of its tenant after B was cached', async () => {
    const [a, b] = expectedOrder;
    assert.equal((await get(`/accounts/${b}`)).status, 200, 'the tenant admin caches B');
    // A tenant-level admin, so only the key's scope stands between it and B.
    const keyed = await tenant.addUser([{ level: 'tenant', role: 'admin' }], { keyAccountId: a! });
    assert.equal((await get(`/accounts/${a}`, keyed.token)).status, 200);
    const res = await get(`/accounts/${b}`, keyed.token);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'not_found');
  });

  test('"not found" is not remembered: an account created after a 404 is found at once', async () => {
    const id = randomUUID();
    assert.equal((await get(`/accounts/${id}`)).status, 404);
    // Written behind the server's back, as another Posture process (the CLI) would.
    await t.db.query('insert into accounts (id, tenant_id, name) values ($1, $2, $3)', [
      id,
      tenant.tenantId,
      `created-after-404-${id}`,
    ]);
    const res = await get(`/accounts/${id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.id, id);
    assert.equal(res.body.parent_id, tenant.tenantId);
  });

  test('an upper-case id names the same account, answered with its stored id', async () => {
    const first = await get(`/accounts/${tenant.accountId}`);
    const upper = await get(`/accounts/${tenant.accountId.toUpperCase()}`);
    assert.equal(upper.status, 200);
    assert.deepEqual(upper.body, first.body);
  });
});
