import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';
import { hashToken } from '../../security/secrets.js';
import { announceSessionChange } from '../auth/revocations.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ SESSION_TTL: 3600 });
});
after(() => t.close());

const CONSOLE = { 'x-posture-console': '1' };

/** The `ory_kratos_session` Set-Cookie line of a response. */
function sessionSetCookie(headers: Record<string, unknown>): string | undefined {
  const raw = headers['set-cookie'];
  const lines = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  return lines.find((line) => line.startsWith('ory_kratos_session='));
}

const tokenOf = (setCookie: string) => /^ory_kratos_session=([^;]*)/.exec(setCookie)?.[1] ?? '';
const cookie = (token: string) => ({ cookie: `ory_kratos_session=${token}` });

async function signIn(accessKeyId: string, secretKey: string) {
  const res = await t.request({
    method: 'POST',
    url: '/console/session',
    headers: CONSOLE,
    body: { access_key_id: accessKeyId, secret_key: secretKey },
  });
  assert.equal(res.status, 200, res.text);
  const setCookie = sessionSetCookie(res.headers);
  assert.ok(setCookie, 'sets the session cookie');
  return { res, setCookie, token: tokenOf(setCookie) };
}

describe('POST /console/session', () => {
  test('sets an HttpOnly, SameSite=Strict cookie for the session lifetime; the body names the caller, not the token', async () => {
    const tenant = await createTenant(t);
    const { res, setCookie, token } = await signIn(tenant.admin.accessKeyId, tenant.admin.secretKey);
    const attributes = setCookie.split(';').map((part) => part.trim().toLowerCase());
    assert.ok(attributes.includes('httponly'));
    assert.ok(attributes.includes('samesite=strict'));
    assert.ok(attributes.includes('path=/'));
    assert.ok(!attributes.includes('secure'), 'plain http (local start) gets no Secure flag');
    const maxAge = Number(attributes.find((a) => a.startsWith('max-age='))?.slice('max-age='.length));
    assert.ok(maxAge > 3590 && maxAge <= 3600, `max-age ${maxAge}`);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.body.tenant_id, tenant.tenantId);
    assert.equal(res.body.user_id, tenant.admin.userId);
    assert.equal(res.body.key_scope, 'tenant');
    assert.equal(res.body.key_account_id, null);
    assert.ok(!res.text.includes(token), 'the token is never in the body');

    const accounts = await t.request({ method: 'GET', url: '/accounts', headers: cookie(token) });
    assert.equal(accounts.status, 200, 'the API accepts the cookie');
    assert.deepEqual(
      accounts.body.entries.map((a: { id: string }) => a.id),
      [tenant.accountId],
    );
  });

  test('wrong secret: 401 invalid_credentials and no cookie', async () => {
    const tenant = await createTenant(t);
    const res = await t.request({
      method: 'POST',
      url: '/console/session',
      headers: CONSOLE,
      body: { access_key_id: tenant.admin.accessKeyId, secret_key: 'psk_wrong' },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'invalid_credentials');
    assert.equal(sessionSetCookie(res.headers), undefined);
  });

  test('without the console header: 403 before the key is even checked; a form post: 415', async () => {
    const tenant = await createTenant(t);
    const credentials = { access_key_id: tenant.admin.accessKeyId, secret_key: tenant.admin.secretKey };
    const forged = await t.request({ method: 'POST', url: '/console/session', body: credentials });
    assert.equal(forged.status, 403);
    assert.equal(forged.body.code, 'forbidden');
    assert.equal(sessionSetCookie(forged.headers), undefined);

    const form = await t.request({
      method: 'POST',
      url: '/console/session',
      headers: { ...CONSOLE, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `access_key_id=${credentials.access_key_id}&secret_key=${credentials.secret_key}`,
    });
    assert.equal(form.status, 415);
    assert.equal(sessionSetCookie(form.headers), undefined);
  });

  test('malformed body: 400 naming the field', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/console/session',
      headers: CONSOLE,
      body: { access_key_id: 'pak_x' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.validation_details[0].field, 'secret_key');
  });
});

describe('DELETE /console/session', () => {
  test('ends the session server-side and clears the cookie', async () => {
    const tenant = await createTenant(t);
    const { token } = await signIn(tenant.admin.accessKeyId, tenant.admin.secretKey);
    const res = await t.request({
      method: 'DELETE',
      url: '/console/session',
      headers: { ...CONSOLE, ...cookie(token) },
    });
    assert.equal(res.status, 204);
    const cleared = sessionSetCookie(res.headers);
    assert.ok(cleared, 'clears the cookie');
    assert.match(cleared, /^ory_kratos_session=;/);
    assert.match(cleared, /Expires=Thu, 01 Jan 1970/);
    assert.match(cleared, /HttpOnly/);

    const stored = await t.db.query('select 1 from sessions where token_hash = $1', [hashToken(token)]);
    assert.equal(stored.rows.length, 0, 'the session row is gone');
    const after = await t.request({ method: 'GET', url: '/accounts', token });
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'unauthenticated');
  });

  test('is idempotent without a cookie, and refuses a forged call (403, session kept)', async () => {
    const none = await t.request({ method: 'DELETE', url: '/console/session', headers: CONSOLE });
    assert.equal(none.status, 204);

    const tenant = await createTenant(t);
    const { token } = await signIn(tenant.admin.accessKeyId, tenant.admin.secretKey);
    const forged = await t.request({ method: 'DELETE', url: '/console/session', headers: cookie(token) });
    assert.equal(forged.status, 403);
    const still = await t.request({ method: 'GET', url: '/accounts', token });
    assert.equal(still.status, 200, 'the session still works');
  });
});

describe('CSRF guard on cookie-authenticated writes', () => {
  async function newKey(adminToken: string) {
    const res = await t.request({
      method: 'POST',
      url: '/accounts/access_keys',
      token: adminToken,
      body: { name: 'target', scope: 'tenant' },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  }
  const revokedAt = async (adminToken: string, id: string) =>
    (await t.request({ method: 'GET', url: `/accounts/access_keys/${id}`, token: adminToken })).body
      .revoked_at;

  test('a browser write with the cookie but without the console header is refused and changes nothing', async () => {
    const tenant = await createTenant(t);
    const { token } = await signIn(tenant.admin.accessKeyId, tenant.admin.secretKey);
    const id = await newKey(tenant.adminToken);
    const browsers: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const browser of browsers) {
      const res = await t.request({
        method: 'PUT',
        url: `/accounts/access_keys/${id}/revoke`,
        headers: { ...cookie(token), ...browser },
      });
      assert.equal(res.status, 403, JSON.stringify(browser));
      assert.equal(res.body.code, 'forbidden');
      assert.equal(await revokedAt(tenant.adminToken, id), null, 'not revoked');
    }
  });

  test('the console (header sent) may write with the cookie', async () => {
    const tenant = await createTenant(t);
    const { token } = await signIn(tenant.admin.accessKeyId, tenant.admin.secretKey);
    const id = await newKey(tenant.adminToken);
    const res = await t.request({
      method: 'PUT',
      url: `/accounts/access_keys/${id}/revoke`,
      headers: { ...cookie(token), ...CONSOLE, origin: 'http://localhost', 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(res.status, 204, res.text);
    assert.notEqual(await revokedAt(tenant.adminToken, id), null);
  });

  test('reads with the cookie, non-browser clients replaying the cookie, and bearer callers are unaffected', async () => {
    const tenant = await createTenant(t);
    const { token } = await signIn(tenant.admin.accessKeyId, tenant.admin.secretKey);
    const read = await t.request({
      method: 'GET',
      url: '/accounts',
      headers: { ...cookie(token), origin: 'https://evil.example' },
    });
    assert.equal(read.status, 200);

    const script = await t.request({
      method: 'PUT',
      url: `/accounts/access_keys/${await newKey(tenant.adminToken)}/revoke`,
      headers: cookie(token),
    });
    assert.equal(script.status, 204, 'no Origin, no Sec-Fetch-Site: not a browser');

    const bearer = await t.request({
      method: 'PUT',
      url: `/accounts/access_keys/${await newKey(tenant.adminToken)}/revoke`,
      token: tenant.adminToken,
      headers: { origin: 'https://elsewhere.example' },
    });
    assert.equal(bearer.status, 204, 'a bearer header is never sent by the browser on its own');
  });

  test('an expired cookie session answers 401 token_expired (the console then asks to sign in again)', async () => {
    const tenant = await createTenant(t);
    const { token } = await signIn(tenant.admin.accessKeyId, tenant.admin.secretKey);
    await t.db.query(`update sessions set expires_at = now() - interval '1 minute' where token_hash = $1`, [
      hashToken(token),
    ]);
    // Written behind the server's back: its session cache (docs/auth.md) must be told.
    announceSessionChange({ all: true });
    const res = await t.request({ method: 'GET', url: '/accounts', headers: cookie(token) });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'token_expired');
  });
});

describe('GET /console/session', () => {
  test('names the caller of the cookie, with its roles as its key narrows them', async () => {
    const tenant = await createTenant(t);
    const second = await tenant.addAccount();
    const viewer = await tenant.addUser([
      { level: 'tenant', role: 'viewer' },
      { level: 'account', accountId: second, role: 'editor' },
    ]);
    const { token } = await signIn(viewer.accessKeyId, viewer.secretKey);
    const res = await t.request({ method: 'GET', url: '/console/session', headers: cookie(token) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(res.body, {
      tenant_id: tenant.tenantId,
      user_id: viewer.userId,
      access_key_id: viewer.accessKeyId,
      key_scope: 'tenant',
      key_account_id: null,
      tenant_role: 'viewer',
      account_roles: [{ account_id: second, role: 'editor' }],
    });
  });

  test('an account-scoped key of a tenant admin acts, and is shown, as an admin of that one account', async () => {
    const tenant = await createTenant(t);
    const scoped = await tenant.addUser([{ level: 'tenant', role: 'admin' }], {
      keyAccountId: tenant.accountId,
    });
    const res = await t.request({ method: 'GET', url: '/console/session', token: scoped.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.key_scope, 'account');
    assert.equal(res.body.tenant_role, null);
    assert.deepEqual(res.body.account_roles, [{ account_id: tenant.accountId, role: 'admin' }]);
  });

  test('without a session: 401, and no console header is needed to ask', async () => {
    const res = await t.request({ method: 'GET', url: '/console/session' });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'unauthenticated');
  });
});
