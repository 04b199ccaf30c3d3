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

const AUTHENTICATE = '/authentication/authenticate';
const RFC3339_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What clients send: a JSON type, curl -d's form type, and nothing at all. */
const CONTENT_TYPES: Record<string, string>[] = [
  { 'content-type': 'application/json' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  {},
];

const credentials = (accessKeyId: string, secretKey: string) =>
  JSON.stringify({ access_key_id: accessKeyId, secret_key: secretKey });

/** The body minus what differs on every request, to compare two refusals. */
function withoutRequestId(body: Record<string, unknown>) {
  const { request_id: _ignored, ...rest } = body;
  return rest;
}

const detailsOf = (res: TestResponse) =>
  (res.body.validation_details as { field: string; code: string }[])
    .map(({ field, code }) => ({ field, code }))
    .sort((a, b) => a.field.localeCompare(b.field));

async function sessionCount(t: TestApp, accessKeyId: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    'select count(*) as n from sessions where access_key_id = $1',
    [accessKeyId],
  );
  return Number(rows[0]?.n);
}

describe('POST /authentication/authenticate', () => {
  let t: TestApp;
  let tenant: TestTenant;
  // Every inject comes from 127.0.0.1: a generous limit keeps the address throttle out of the way.
  before(async () => {
    t = await startTestApp({ SESSION_TTL: 120, LOGIN_MAX_FAILURES: 100 });
    tenant = await createTenant(t);
  });
  after(() => t.close());

  const authenticate = (payload: string, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: AUTHENTICATE, payload, headers });

  test('takes the JSON body as application/json, as form-urlencoded (curl -d) and untyped', async () => {
    const { accessKeyId, secretKey } = tenant.admin;
    const before = await sessionCount(t, accessKeyId);
    const tokens: string[] = [];
    for (const headers of CONTENT_TYPES) {
      const res = await authenticate(credentials(accessKeyId, secretKey), headers);
      assert.equal(res.status, 200, `${JSON.stringify(headers)}: ${res.text}`);
      assert.match(res.body.token, /^pst_[A-Za-z0-9_-]{43}$/);
      assert.equal(res.headers['cache-control'], 'no-store');
      const accounts = await t.request({ method: 'GET', url: '/accounts', token: res.body.token });
      assert.equal(accounts.status, 200);
      tokens.push(res.body.token);
    }
    assert.equal(new Set(tokens).size, 3, 'every login gets its own token');
    assert.equal(await sessionCount(t, accessKeyId), before + 3);
  });

  test('malformed JSON -> 400 validation_failed, whatever the content type, and no session', async () => {
    const before = await sessionCount(t, tenant.admin.accessKeyId);
    for (const headers of CONTENT_TYPES) {
      const res = await authenticate(`{"access_key_id": "${tenant.admin.accessKeyId}",`, headers);
      assert.equal(res.status, 400, JSON.stringify(headers));
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(detailsOf(res), [{ field: 'body', code: 'invalid_format' }]);
    }
    assert.equal(await sessionCount(t, tenant.admin.accessKeyId), before);
  });

  test('missing, unknown and wrong-typed fields -> 400 with one detail per bad field', async () => {
    const cases: [unknown, { field: string; code: string }[]][] = [
      [
        {},
        [
          { field: 'access_key_id', code: 'required' },
          { field: 'secret_key', code: 'required' },
        ],
      ],
      [
        { access_key_id: tenant.admin.accessKeyId, secret_key: tenant.admin.secretKey, tenant: 'x' },
        [{ field: 'tenant', code: 'unknown_field' }],
      ],
      [
        { access_key_id: 5, secret_key: true },
        [
          { field: 'access_key_id', code: 'invalid_type' },
          { field: 'secret_key', code: 'invalid_type' },
        ],
      ],
      [
        { access_key_id: ['a'], extra: 1 },
        [
          { field: 'access_key_id', code: 'invalid_type' },
          { field: 'extra', code: 'unknown_field' },
          { field: 'secret_key', code: 'required' },
        ],
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await authenticate(JSON.stringify(body), { 'content-type': 'application/json' });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(detailsOf(res), expected, JSON.stringify(body));
    }
  });

  test('unknown key id and wrong secret -> the same 401 invalid_credentials', async () => {
    const unknown = await authenticate(credentials('pak_000000000000000000000000', tenant.admin.secretKey));
    const wrong = await authenticate(credentials(tenant.admin.accessKeyId, 'psk_wrong'));
    for (const res of [unknown, wrong]) {
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'invalid_credentials');
    }
    assert.notEqual(unknown.body.request_id, wrong.body.request_id);
    assert.deepEqual(withoutRequestId(unknown.body), withoutRequestId(wrong.body));
  });

  test('a locked user, a revoked key and an expired key cannot authenticate', async () => {
    const reference = await authenticate(credentials('pak_000000000000000000000000', 'psk_x'));
    const refused = async (accessKeyId: string, secretKey: string) => {
      const res = await authenticate(credentials(accessKeyId, secretKey));
      assert.equal(res.status, 401, res.text);
      assert.deepEqual(withoutRequestId(res.body), withoutRequestId(reference.body));
    };

    const locked = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    await t.tenancy.setUserLocked({ tenantId: tenant.tenantId, userId: locked.userId, locked: true });
    await refused(locked.accessKeyId, locked.secretKey);
    const oldSession = await t.request({ method: 'GET', url: '/accounts', token: locked.token });
    assert.equal(oldSession.status, 401, 'locking a user ends its sessions');
    await t.tenancy.setUserLocked({ tenantId: tenant.tenantId, userId: locked.userId, locked: false });
    assert.ok(await login(t, locked.accessKeyId, locked.secretKey), 'unlocked: the key works again');

    const revoked = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    await t.tenancy.revokeAccessKey({ tenantId: tenant.tenantId, accessKeyId: revoked.accessKeyId });
    await refused(revoked.accessKeyId, revoked.secretKey);

    const key = await t.tenancy.createAccessKey({
      tenantId: tenant.tenantId,
      userId: tenant.admin.userId,
      name: 'expiring',
      scope: 'tenant',
      accountId: null,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    assert.ok(await login(t, key.access_key_id, key.secret_key), 'usable before it expires');
    await t.db.query(`update access_keys set expires_at = now() - interval '1 second' where id = $1`, [
      key.access_key_id,
    ]);
    await refused(key.access_key_id, key.secret_key);
  });

  test('the token lasts SESSION_TTL; expires_at is RFC 3339 UTC with milliseconds', async () => {
    const startedAt = Date.now();
    const res = await authenticate(credentials(tenant.admin.accessKeyId, tenant.admin.secretKey));
    assert.equal(res.status, 200);
    assert.match(res.body.expires_at, RFC3339_MS_UTC);
    const lifetime = Date.parse(res.body.expires_at) - startedAt;
    assert.ok(lifetime >= 119_000 && lifetime <= 122_000, `lifetime ${lifetime} ms`);
    const { rows } = await t.db.query<{ expires_at: Date }>(
      'select expires_at from sessions where token_hash = $1',
      [hashToken(res.body.token)],
    );
    assert.equal(rows[0]?.expires_at.toISOString(), res.body.expires_at, 'stored with the same expiry');
  });

  test('the token works from Authorization: Bearer and from the ory_kratos_session cookie', async () => {
    const token = await login(t, tenant.admin.accessKeyId, tenant.admin.secretKey);
    const viaBearer = await t.request({ method: 'GET', url: '/accounts', token });
    const viaCookie = await t.request({
      method: 'GET',
      url: '/accounts',
      headers: { cookie: `theme=dark; ory_kratos_session=${token}` },
    });
    assert.equal(viaBearer.status, 200);
    assert.equal(viaCookie.status, 200, viaCookie.text);
    assert.deepEqual(viaCookie.body, viaBearer.body);
    assert.equal(viaBearer.body.entries[0].id, tenant.accountId);
    const badCookie = await t.request({
      method: 'GET',
      url: '/accounts',
      headers: { cookie: 'ory_kratos_session=pst_unknown' },
    });
    assert.equal(badCookie.status, 401);
    assert.equal(badCookie.body.code, 'unauthenticated');
  });

  test('HEAD of an authenticated route needs a session, as its GET does; a public one does not', async () => {
    const url = `/accounts/${tenant.accountId}`;
    const token = await login(t, tenant.admin.accessKeyId, tenant.admin.secretKey);
    const head = (headers: Record<string, string> = {}, path = url) =>
      t.app.inject({ method: 'HEAD', url: path, headers }).then((res) => res.statusCode);
    assert.equal(await head(), 401);
    assert.equal(await head({ authorization: `Bearer ${token}` }), 200);
    // Read as @fastify/cookie reads it: percent-decoded.
    assert.equal(await head({ cookie: `theme=dark; ory_kratos_session=%70${token.slice(1)}` }), 200);
    assert.equal(await head({}, '/healthz'), 200);
  });

  test('an expired session -> 401 token_expired, by header and by cookie', async () => {
    const token = await login(t, tenant.admin.accessKeyId, tenant.admin.secretKey);
    await t.db.query(`update sessions set expires_at = now() - interval '1 second' where token_hash = $1`, [
      hashToken(token),
    ]);
    const ways: Record<string, string>[] = [
      { authorization: `Bearer ${token}` },
      { cookie: `ory_kratos_session=${token}` },
    ];
    for (const headers of ways) {
      const res = await t.request({ method: 'GET', url: '/accounts', headers });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'token_expired');
    }
  });

  test("a login sets the user's last_login_at (members list) and the key's last_used_at", async () => {
    const { user_id } = await t.tenancy.createUser({ tenantId: tenant.tenantId, name: 'first-login' });
    await t.tenancy.assignRole({
      tenantId: tenant.tenantId,
      userId: user_id,
      level: 'account',
      accountId: tenant.accountId,
      role: 'viewer',
    });
    const key = await t.tenancy.createAccessKey({
      tenantId: tenant.tenantId,
      userId: user_id,
      name: 'first',
      scope: 'tenant',
      accountId: null,
    });
    const member = async () => {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${tenant.accountId}/users`,
        token: tenant.adminToken,
      });
      return res.body.entries.find((entry: { id: string }) => entry.id === user_id);
    };
    assert.equal((await member()).last_login_at, null);
    const startedAt = Date.now();
    await login(t, key.access_key_id, key.secret_key);
    const lastLogin = Date.parse((await member()).last_login_at);
    assert.ok(lastLogin >= startedAt - 1000 && lastLogin <= Date.now() + 1000, 'set to the login time');
    const stored = await t.request({
      method: 'GET',
      url: `/accounts/access_keys/${key.access_key_id}`,
      token: tenant.adminToken,
    });
    assert.ok(Date.parse(stored.body.last_used_at) >= startedAt - 1000);

    // The fields move at most once a second (docs/auth.md): an hour-old value moves at the next login.
    await t.db.query(`update users set last_login_at = now() - interval '1 hour' where id = $1`, [user_id]);
    await t.db.query(`update access_keys set last_used_at = now() - interval '1 hour' where id = $1`, [
      key.access_key_id,
    ]);
    const againAt = Date.now();
    await login(t, key.access_key_id, key.secret_key);
    assert.ok(Date.parse((await member()).last_login_at) >= againAt - 1000, 'last_login_at moved');
    const { rows } = await t.db.query<{ moved: boolean }>(
      `select last_used_at > now() - interval '1 minute' as moved from access_keys where id = $1`,
      [key.access_key_id],
    );
    assert.equal(rows[0]?.moved, true, 'last_used_at moved');
  });

  test('the secret key appears in the create response only', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/accounts/access_keys',
      token: tenant.adminToken,
      body: { name: 'shown-once', scope: 'tenant' },
    });
    assert.equal(created.status, 201);
    const secret: string = created.body.secret_key;
    const token = await login(t, created.body.id, secret);
    const afterwards = [
      await authenticate(credentials(created.body.id, secret)),
      await t.request({ method: 'GET', url: '/accounts/access_keys?limit=1000', token }),
      await t.request({ method: 'GET', url: `/accounts/access_keys/${created.body.id}`, token }),
      await t.request({ method: 'PUT', url: `/accounts/access_keys/${created.body.id}/revoke`, token }),
      await t.request({
        method: 'GET',
        url: `/accounts/access_keys/${created.body.id}`,
        token: tenant.adminToken,
      }),
    ];
    assert.ok(afterwards[1]?.body.entries.some((key: { id: string }) => key.id === created.body.id));
    for (const res of afterwards) {
      assert.ok(res.status < 300, res.text);
      assert.ok(!res.text.includes(secret), `secret leaked: ${res.text}`);
      assert.ok(!res.text.includes('secret'), `a secret field in: ${res.text}`);
    }
    const { rows } = await t.db.query<{ secret_hash: Buffer }>(
      'select secret_hash from access_keys where id = $1',
      [created.body.id],
    );
    assert.ok(!Buffer.from(rows[0]!.secret_hash).toString('latin1').includes(secret), 'stored hashed');
  });
});

describe('failed-login throttle', () => {
  let t: TestApp;
  let tenant: TestTenant;
  before(async () => {
    t = await startTestApp({ LOGIN_MAX_FAILURES: 3 });
    tenant = await createTenant(t);
  });
  after(() => t.close());

  /** Straight to the app, to choose the client address (the harness always uses 127.0.0.1). */
  async function authenticateFrom(remoteAddress: string, accessKeyId: string, secretKey: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: AUTHENTICATE,
      remoteAddress,
      headers: { 'content-type': 'application/json' },
      payload: credentials(accessKeyId, secretKey),
    });
    return { status: res.statusCode, headers: res.headers, body: res.json() };
  }

  const assertThrottled = (res: Awaited<ReturnType<typeof authenticateFrom>>) => {
    assert.equal(res.status, 429, JSON.stringify(res.body));
    assert.equal(res.body.code, 'rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 300, `${retryAfter}`);
  };

  test('after LOGIN_MAX_FAILURES failures of a key -> 429 with Retry-After, even with the right secret', async () => {
    const { accessKeyId, secretKey } = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const sessionsBefore = await sessionCount(t, accessKeyId);
    // Three addresses, one failure each: the key's own count trips, no address's does.
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      assert.equal((await authenticateFrom(address, accessKeyId, 'psk_wrong')).status, 401);
    }
    assertThrottled(await authenticateFrom('10.0.0.4', accessKeyId, secretKey));
    assert.equal(await sessionCount(t, accessKeyId), sessionsBefore, 'no session issued');
    assert.equal(
      (await authenticateFrom('10.0.0.4', tenant.admin.accessKeyId, tenant.admin.secretKey)).status,
      200,
    );
  });

  test('after LOGIN_MAX_FAILURES failures from an address, that address is refused for any key', async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await authenticateFrom('10.0.1.1', `pak_unknown${i}`, 'psk_x')).status, 401);
    }
    assertThrottled(await authenticateFrom('10.0.1.1', tenant.admin.accessKeyId, tenant.admin.secretKey));
    assert.equal(
      (await authenticateFrom('10.0.1.2', tenant.admin.accessKeyId, tenant.admin.secretKey)).status,
      200,
    );
  });

  test('through the harness: the 429 is the documented ApiError', async () => {
    const { accessKeyId, secretKey } = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    for (let i = 0; i < 3; i++) {
      await t.request({
        method: 'POST',
        url: AUTHENTICATE,
        body: { access_key_id: accessKeyId, secret_key: 'psk_no' },
      });
    }
    const res = await t.request({
      method: 'POST',
      url: AUTHENTICATE,
      body: { access_key_id: accessKeyId, secret_key: secretKey },
    });
    assert.equal(res.status, 429);
    assert.equal(res.body.code, 'rate_limited');
    assert.ok(Number(res.headers['retry-after']) > 0);
  });
});
