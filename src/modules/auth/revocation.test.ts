/**
 * The session cache (docs/auth.md, "Session cache") never outlives a revocation made by this
 * process: every path that ends or changes a session's authority takes effect on the very next
 * request. Each test first uses the token, so its Actor is in the cache when the change is made.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { hashToken } from '../../security/secrets.js';
import { SESSION_CACHE_TTL_MS } from './service.js';

let t: TestApp;
let tenant: TestTenant;
before(async () => {
  t = await startTestApp({ SESSION_TTL: 120 });
  tenant = await createTenant(t);
});
after(() => t.close());

const getAccount = (token: string) =>
  t.request({ method: 'GET', url: `/accounts/${tenant.accountId}`, token });
const listKeys = (token: string) => t.request({ method: 'GET', url: '/accounts/access_keys', token });

async function assertStatus(
  request: Promise<{ status: number; body: { code?: string } }>,
  status: number,
  code?: string,
) {
  const res = await request;
  assert.equal(res.status, status, JSON.stringify(res.body));
  if (code) assert.equal(res.body.code, code);
}

describe('revocation reaches the next request, though the session is cached', () => {
  test('PUT /accounts/access_keys/{id}/revoke', async () => {
    const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    await assertStatus(getAccount(user.token), 200);
    const revoke = await t.request({
      method: 'PUT',
      url: `/accounts/access_keys/${user.accessKeyId}/revoke`,
      token: tenant.adminToken,
    });
    assert.equal(revoke.status, 204);
    await assertStatus(getAccount(user.token), 401, 'unauthenticated');
  });

  test('posture keys revoke (the tenancy service)', async () => {
    const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    await assertStatus(getAccount(user.token), 200);
    await t.tenancy.revokeAccessKey({ tenantId: tenant.tenantId, accessKeyId: user.accessKeyId });
    await assertStatus(getAccount(user.token), 401, 'unauthenticated');
  });

  test('posture users lock (the tenancy service)', async () => {
    const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    await assertStatus(getAccount(user.token), 200);
    await t.tenancy.setUserLocked({ tenantId: tenant.tenantId, userId: user.userId, locked: true });
    await assertStatus(getAccount(user.token), 401, 'unauthenticated');
  });

  test('DELETE /console/session (sign-out)', async () => {
    const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const cookie = { cookie: `ory_kratos_session=${user.token}` };
    await assertStatus(t.request({ method: 'GET', url: '/accounts', headers: cookie }), 200);
    const signOut = await t.request({
      method: 'DELETE',
      url: '/console/session',
      headers: { 'x-posture-console': '1', ...cookie },
    });
    assert.equal(signOut.status, 204);
    await assertStatus(
      t.request({ method: 'GET', url: '/accounts', headers: cookie }),
      401,
      'unauthenticated',
    );
    await assertStatus(getAccount(user.token), 401, 'unauthenticated');
  });

  test('PUT .../users/{user_id}/roles removing a role, then granting it back', async () => {
    const user = await tenant.addUser([{ level: 'tenant', role: 'admin' }]);
    await assertStatus(listKeys(user.token), 200);
    const setRoles = (roles: object[]) =>
      t.request({
        method: 'PUT',
        url: `/accounts/${tenant.accountId}/users/${user.userId}/roles`,
        token: tenant.adminToken,
        body: { roles },
      });
    assert.equal((await setRoles([{ level: 'tenant', name: 'viewer' }])).status, 200);
    await assertStatus(listKeys(user.token), 403, 'forbidden');
    assert.equal((await setRoles([{ level: 'tenant', name: 'admin' }])).status, 200);
    await assertStatus(listKeys(user.token), 200);
  });

  test('posture roles assign (the tenancy service) grants at once', async () => {
    const other = await tenant.addAccount();
    const user = await tenant.addUser([{ level: 'account', accountId: other, role: 'viewer' }]);
    await assertStatus(getAccount(user.token), 404, 'not_found');
    await t.tenancy.assignRole({
      tenantId: tenant.tenantId,
      userId: user.userId,
      level: 'account',
      accountId: tenant.accountId,
      role: 'viewer',
    });
    await assertStatus(getAccount(user.token), 200);
  });

  test("one user's revocation leaves other users' cached sessions working", async () => {
    const kept = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const revoked = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    await assertStatus(getAccount(kept.token), 200);
    await assertStatus(getAccount(revoked.token), 200);
    await t.tenancy.revokeAccessKey({ tenantId: tenant.tenantId, accessKeyId: revoked.accessKeyId });
    await assertStatus(getAccount(revoked.token), 401);
    await assertStatus(getAccount(kept.token), 200);
  });
});

describe('expiry is enforced while cached', () => {
  const EXPIRES_IN_MS = 600;

  /**
   * Used (and so cached) while still valid, then used again once past its expiry. The expiry was
   * set between `setFrom` and now (the database's clock ran the update).
   */
  async function usableUntilItExpires(token: string, setFrom: number) {
    const setTo = Date.now();
    const first = await getAccount(token);
    // On a machine too loaded to answer within the window, only the refusal can be checked.
    if (Date.now() - setFrom < EXPIRES_IN_MS) assert.equal(first.status, 200, first.text);
    await sleep(Math.max(0, setTo + EXPIRES_IN_MS + 50 - Date.now()));
  }

  test('a session expiring while cached -> 401 token_expired', async () => {
    const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const setFrom = Date.now();
    await t.db.query(
      `update sessions set expires_at = now() + $2 * interval '1 millisecond' where token_hash = $1`,
      [hashToken(user.token), EXPIRES_IN_MS],
    );
    await usableUntilItExpires(user.token, setFrom);
    await assertStatus(getAccount(user.token), 401, 'token_expired');
  });

  test('a key expiring while its session is cached -> 401 unauthenticated', async () => {
    const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const setFrom = Date.now();
    await t.db.query(
      `update access_keys set expires_at = now() + $2 * interval '1 millisecond' where id = $1`,
      [user.accessKeyId, EXPIRES_IN_MS],
    );
    await usableUntilItExpires(user.token, setFrom);
    await assertStatus(getAccount(user.token), 401, 'unauthenticated');
  });
});

test('a revocation written by another process is seen within SESSION_CACHE_TTL_MS', async () => {
  const user = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
  // The entry is stored between these two instants, so it is trusted until some time between
  // them plus the TTL.
  const lookupStarted = Date.now();
  await assertStatus(getAccount(user.token), 200);
  const lookupEnded = Date.now();
  // What `posture keys revoke` does from another process: this process hears nothing of it.
  await t.db.query('update access_keys set revoked_at = now() where id = $1', [user.accessKeyId]);
  await t.db.query('delete from sessions where access_key_id = $1', [user.accessKeyId]);
  const stale = await getAccount(user.token);
  // Proves the cache is in the path (only meaningful when the machine was quick enough).
  if (Date.now() - lookupStarted < SESSION_CACHE_TTL_MS / 2)
    assert.equal(stale.status, 200, 'served from the cache');
  await sleep(Math.max(0, lookupEnded + SESSION_CACHE_TTL_MS + 20 - Date.now()));
  await assertStatus(getAccount(user.token), 401, 'unauthenticated');
});
