import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createTenant,
  login,
  startTestApp,
  type TestApp,
  type TestResponse,
  type TestTenant,
} from '../../../test/support/harness.js';
import { hashToken } from '../../security/secrets.js';

const KEYS = '/accounts/access_keys';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const create = (token: string, body: unknown) => t.request({ method: 'POST', url: KEYS, token, body });
const get = (token: string, url: string) => t.request({ method: 'GET', url, token });

async function keyCount(tenantId: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    'select count(*) as n from access_keys where tenant_id = $1',
    [tenantId],
  );
  return Number(rows[0]?.n);
}

function assertInvalid(res: TestResponse, field: string, code: string) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.code, 'validation_failed');
  assert.deepEqual(
    res.body.validation_details.map((d: { field: string; code: string }) => [d.field, d.code]),
    [[field, code]],
  );
}

const ids = (res: TestResponse): string[] => res.body.entries.map((entry: { id: string }) => entry.id);

describe('POST /accounts/access_keys', () => {
  let tenant: TestTenant;
  let otherAccount: string;
  before(async () => {
    tenant = await createTenant(t);
    otherAccount = await tenant.addAccount();
  });

  test('a tenant admin creates a tenant key: 201, secret once, no-store; the key works tenant-wide', async () => {
    const res = await create(tenant.adminToken, { name: 'ci', scope: 'tenant' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(res.body.id, /^pak_[0-9a-f]{24}$/);
    assert.match(res.body.secret_key, /^psk_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      { ...res.body, id: undefined, secret_key: undefined, created_at: undefined },
      {
        id: undefined,
        secret_key: undefined,
        created_at: undefined,
        name: 'ci',
        scope: 'tenant',
        account_id: null,
        user_id: tenant.admin.userId,
        created_by: tenant.admin.userId,
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
      },
    );
    const token = await login(t, res.body.id, res.body.secret_key);
    const accounts = await get(token, '/accounts');
    assert.deepEqual(ids(accounts).sort(), [tenant.accountId, otherAccount].sort());
  });

  test('an account key acts within its account only', async () => {
    const res = await create(tenant.adminToken, {
      name: 'agent',
      scope: 'account',
      account_id: otherAccount,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.scope, 'account');
    assert.equal(res.body.account_id, otherAccount);
    const token = await login(t, res.body.id, res.body.secret_key);
    assert.deepEqual(ids(await get(token, '/accounts')), [otherAccount]);
    assert.equal((await get(token, `/accounts/${otherAccount}`)).status, 200);
    const outside = await get(token, `/accounts/${tenant.accountId}`);
    assert.equal(outside.status, 404);
    assert.equal(outside.body.code, 'not_found');
  });

  test('a tenant key needs a tenant admin; an account key needs admin on that account', async () => {
    const accountAdmin = await tenant.addUser([
      { level: 'account', accountId: tenant.accountId, role: 'admin' },
      { level: 'account', accountId: otherAccount, role: 'editor' },
    ]);
    const editor = await tenant.addUser([{ level: 'tenant', role: 'editor' }]);
    const before = await keyCount(tenant.tenantId);
    const tenantKey = await create(accountAdmin.token, { name: 'x', scope: 'tenant' });
    assert.equal(tenantKey.status, 403, tenantKey.text);
    assert.equal(tenantKey.body.code, 'forbidden');
    const editorOnly = await create(accountAdmin.token, {
      name: 'x',
      scope: 'account',
      account_id: otherAccount,
    });
    assert.equal(editorOnly.status, 403, editorOnly.text);
    const byEditor = await create(editor.token, {
      name: 'x',
      scope: 'account',
      account_id: tenant.accountId,
    });
    assert.equal(byEditor.status, 403);
    assert.equal(await keyCount(tenant.tenantId), before, 'nothing stored');

    const own = await create(accountAdmin.token, {
      name: 'x',
      scope: 'account',
      account_id: tenant.accountId,
    });
    assert.equal(own.status, 201, own.text);
    assert.equal(own.body.user_id, accountAdmin.userId);
  });

  test('bad account_id, past expiry, unknown fields -> 400 naming the field, nothing stored', async () => {
    const other = await createTenant(t);
    const before = await keyCount(tenant.tenantId);
    const token = tenant.adminToken;
    assertInvalid(await create(token, { name: 'x', scope: 'account' }), 'account_id', 'required');
    const unknown = await create(token, {
      name: 'x',
      scope: 'account',
      account_id: '00000000-0000-4000-8000-000000000000',
    });
    assertInvalid(unknown, 'account_id', 'invalid_value');
    const foreign = await create(token, { name: 'x', scope: 'account', account_id: other.accountId });
    assertInvalid(foreign, 'account_id', 'invalid_value');
    assert.equal(foreign.body.validation_details[0].message, unknown.body.validation_details[0].message);
    assertInvalid(
      await create(token, { name: 'x', scope: 'account', account_id: 'garbage' }),
      'account_id',
      'invalid_value',
    );
    assertInvalid(
      await create(token, { name: 'x', scope: 'tenant', account_id: tenant.accountId }),
      'account_id',
      'invalid_value',
    );
    assertInvalid(
      await create(token, {
        name: 'x',
        scope: 'tenant',
        expires_at: new Date(Date.now() - 60_000).toISOString(),
      }),
      'expires_at',
      'out_of_range',
    );
    assertInvalid(
      await create(token, { name: 'x', scope: 'tenant', expires_at: 'tomorrow' }),
      'expires_at',
      'invalid_format',
    );
    assertInvalid(
      await create(token, { name: 'x', scope: 'tenant', user_id: tenant.admin.userId }),
      'user_id',
      'unknown_field',
    );
    assertInvalid(await create(token, { name: 'x', scope: 'global' }), 'scope', 'invalid_value');
    assertInvalid(await create(token, { name: 5, scope: 'tenant' }), 'name', 'invalid_type');
    assert.equal(await keyCount(tenant.tenantId), before);
  });

  test('a future expires_at is stored and returned', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await create(tenant.adminToken, { name: 'temp', scope: 'tenant', expires_at: expiresAt });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.expires_at, expiresAt);
    assert.equal((await get(tenant.adminToken, `${KEYS}/${res.body.id}`)).body.expires_at, expiresAt);
  });
});

describe('GET /accounts/access_keys and GET /accounts/access_keys/{id}', () => {
  test('an offset list, newest first, with limit and offset bounds', async () => {
    const tenant = await createTenant(t);
    const created: string[] = [];
    for (const name of ['k1', 'k2', 'k3']) {
      created.push((await create(tenant.adminToken, { name, scope: 'tenant' })).body.id);
    }
    const all = await get(tenant.adminToken, KEYS);
    assert.equal(all.status, 200);
    assert.equal(all.body.total_count, 4);
    assert.equal(all.body.has_more, false);
    assert.deepEqual([...ids(all)].sort(), [...created, tenant.admin.accessKeyId].sort());
    // Newest first. Keys created within one millisecond (PGlite's clock counts milliseconds) tie on
    // created_at and follow their ids, so the order of creation is not asserted beyond the times.
    const times = all.body.entries.map((entry: { created_at: string }) => Date.parse(entry.created_at));
    assert.ok(
      times.every((time: number, index: number) => index === 0 || times[index - 1] >= time),
      JSON.stringify(all.body.entries),
    );

    const page = await get(tenant.adminToken, `${KEYS}?limit=2&offset=1`);
    assert.deepEqual(ids(page), ids(all).slice(1, 3));
    assert.equal(page.body.has_more, true);
    assert.equal(page.body.total_count, 4);
    const past = await get(tenant.adminToken, `${KEYS}?offset=10`);
    assert.deepEqual([past.body.entries, past.body.has_more, past.body.total_count], [[], false, 4]);

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const res = await get(tenant.adminToken, `${KEYS}?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.validation_details[0].field, field, query);
    }
  });

  test('account admins see and fetch only the keys of their accounts', async () => {
    const tenant = await createTenant(t);
    const accountB = await tenant.addAccount();
    const keyA = (
      await create(tenant.adminToken, { name: 'a', scope: 'account', account_id: tenant.accountId })
    ).body.id;
    const keyB = (await create(tenant.adminToken, { name: 'b', scope: 'account', account_id: accountB })).body
      .id;
    const adminA = await tenant.addUser([{ level: 'account', accountId: tenant.accountId, role: 'admin' }]);

    const list = await get(adminA.token, KEYS);
    assert.equal(list.status, 200);
    assert.deepEqual(ids(list), [keyA]);
    assert.equal(list.body.total_count, 1);
    assert.equal((await get(adminA.token, `${KEYS}/${keyA}`)).status, 200);
    for (const hidden of [keyB, tenant.admin.accessKeyId, adminA.accessKeyId]) {
      const res = await get(adminA.token, `${KEYS}/${hidden}`);
      assert.equal(res.status, 404, hidden);
      assert.equal(res.body.code, 'not_found');
    }
  });

  test('GET one: the key with revoked_at; 404 for another tenant or a garbage id', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const res = await get(tenant.adminToken, `${KEYS}/${tenant.admin.accessKeyId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.id, tenant.admin.accessKeyId);
    assert.equal(res.body.revoked_at, null);
    assert.equal(res.body.name, 'bootstrap');
    const foreign = await get(other.adminToken, `${KEYS}/${tenant.admin.accessKeyId}`);
    const garbage = await get(tenant.adminToken, `${KEYS}/not-a-key%20id`);
    for (const miss of [foreign, garbage]) {
      assert.equal(miss.status, 404);
      assert.equal(miss.body.code, 'not_found');
    }
    assert.equal(foreign.body.message, garbage.body.message);
  });
});

describe('PUT /accounts/access_keys/{id}/revoke', () => {
  test('204; revoked_at set; its sessions end at once; it cannot log in; revoking again keeps revoked_at', async () => {
    const tenant = await createTenant(t);
    const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    assert.equal((await get(user.token, '/accounts')).status, 200);

    const res = await t.request({
      method: 'PUT',
      url: `${KEYS}/${user.accessKeyId}/revoke`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    const revokedAt = (await get(tenant.adminToken, `${KEYS}/${user.accessKeyId}`)).body.revoked_at;
    assert.ok(Date.parse(revokedAt) > Date.now() - 60_000, `revoked_at ${revokedAt}`);

    const session = await get(user.token, '/accounts');
    assert.equal(session.status, 401);
    assert.equal(session.body.code, 'unauthenticated');
    const { rows } = await t.db.query('select 1 from sessions where token_hash = $1', [
      hashToken(user.token),
    ]);
    assert.equal(rows.length, 0, 'the session row is gone');
    const relogin = await t.request({
      method: 'POST',
      url: '/authentication/authenticate',
      body: { access_key_id: user.accessKeyId, secret_key: user.secretKey },
    });
    assert.equal(relogin.status, 401);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await t.request({
      method: 'PUT',
      url: `${KEYS}/${user.accessKeyId}/revoke`,
      token: tenant.adminToken,
    });
    assert.equal(again.status, 204);
    assert.equal((await get(tenant.adminToken, `${KEYS}/${user.accessKeyId}`)).body.revoked_at, revokedAt);
  });

  test('an account admin cannot revoke a key outside its accounts: 404 and the key still works', async () => {
    const tenant = await createTenant(t);
    const accountB = await tenant.addAccount();
    const adminB = await tenant.addUser([{ level: 'account', accountId: accountB, role: 'admin' }]);
    const victim = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const other = await createTenant(t);
    for (const token of [adminB.token, other.adminToken]) {
      const res = await t.request({ method: 'PUT', url: `${KEYS}/${victim.accessKeyId}/revoke`, token });
      assert.equal(res.status, 404);
    }
    assert.equal((await get(victim.token, '/accounts')).status, 200);
    assert.equal((await get(tenant.adminToken, `${KEYS}/${victim.accessKeyId}`)).body.revoked_at, null);
  });
});
