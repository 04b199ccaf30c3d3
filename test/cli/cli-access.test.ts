/**
 * `posture users`, `roles` and `keys` in-process against a real store: the user, role and key
 * they make work through the real app with exactly the granted reach; revoking a key or locking
 * its user stops it; ids of another tenant are refused and nothing is stored.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type CliStore, createCliStore, failedWith, SOME_UUID } from './cli-store.js';

let store: CliStore;
before(async () => {
  store = await createCliStore();
});
after(() => store.close());

test('users create, roles assign and an account-scoped key work together through the API', async () => {
  const boot = await store.bootstrap();
  const staging = await store.json('accounts', 'create', '--tenant', boot.tenant_id, '--name', 'staging');
  const user = await store.json(
    'users',
    'create',
    '--tenant',
    boot.tenant_id,
    '--name',
    'alice',
    '--email',
    'a@x.io',
  );
  assert.deepEqual(user, { user_id: user.user_id, tenant_id: boot.tenant_id, name: 'alice' });
  const who = ['--tenant', boot.tenant_id, '--user', user.user_id];
  const role = await store.json(
    'roles',
    'assign',
    ...who,
    '--role',
    'viewer',
    '--account',
    staging.account_id,
  );
  assert.deepEqual(role, {
    user_id: user.user_id,
    level: 'account',
    account_id: staging.account_id,
    role: 'viewer',
  });
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const key = await store.json(
    ...['keys', 'create', ...who, '--name', 'ci', '--account', staging.account_id, '--expires', expires],
  );
  assert.equal(key.scope, 'account');
  assert.equal(key.account_id, staging.account_id);
  assert.equal(key.expires_at, expires);
  failedWith(
    await store.run('users', 'create', '--tenant', boot.tenant_id, '--name', 'alice'),
    1,
    /user 'alice' already exists in tenant/,
  );
  await store.withApp(async (api) => {
    const { status, token } = await api.authenticate(key.access_key_id, key.secret_key);
    assert.equal(status, 200);
    assert.equal((await api.get(`/accounts/${staging.account_id}`, token!)).status, 200);
    assert.equal(
      (await api.get(`/accounts/${boot.account_id}`, token!)).status,
      404,
      'the key is scoped to staging',
    );
    const listed = await api.get('/accounts', token!);
    assert.deepEqual(
      listed.body.entries.map((account: { id: string }) => account.id),
      [staging.account_id],
    );
  });
});

test("roles and keys refuse another tenant's users and accounts, storing nothing", async () => {
  const a = await store.bootstrap();
  const b = await store.bootstrap();
  failedWith(
    await store.run(
      ...[
        'roles',
        'assign',
        '--tenant',
        a.tenant_id,
        '--user',
        b.user_id,
        '--role',
        'admin',
        '--tenant-level',
      ],
    ),
    1,
    new RegExp(`no user ${b.user_id} in tenant ${a.tenant_id}`),
  );
  failedWith(
    await store.run(
      ...[
        'keys',
        'create',
        '--tenant',
        a.tenant_id,
        '--user',
        a.user_id,
        '--name',
        'x',
        '--account',
        b.account_id,
      ],
    ),
    1,
    new RegExp(`no account ${b.account_id} in tenant ${a.tenant_id}`),
  );
  const counts = await store.withApp(async ({ db }) => {
    const roles = await db.query('select 1 from role_assignments where user_id = $1', [b.user_id]);
    const keys = await db.query('select 1 from access_keys where user_id = $1', [a.user_id]);
    return { roles: roles.rows.length, keys: keys.rows.length };
  });
  assert.deepEqual(counts, { roles: 1, keys: 1 }, 'only what bootstrap made');
});

test('keys revoke makes authentication fail and ends the sessions of the key', async () => {
  const boot = await store.bootstrap();
  const token = await store.withApp(
    async (api) => (await api.authenticate(boot.access_key_id, boot.secret_key)).token,
  );
  assert.ok(token);
  const revoked = await store.json('keys', 'revoke', '--tenant', boot.tenant_id, '--key', boot.access_key_id);
  assert.deepEqual(revoked, { access_key_id: boot.access_key_id, revoked: true });
  failedWith(
    await store.run('keys', 'revoke', '--tenant', SOME_UUID, '--key', boot.access_key_id),
    1,
    new RegExp(`no access key ${boot.access_key_id} in tenant ${SOME_UUID}`),
  );
  await store.withApp(async (api) => {
    assert.equal((await api.authenticate(boot.access_key_id, boot.secret_key)).status, 401);
    assert.equal((await api.get('/accounts', token)).status, 401, 'the session opened before is gone');
  });
});

test('users lock makes authentication fail; unlock restores it', async () => {
  const boot = await store.bootstrap();
  const who = ['--tenant', boot.tenant_id, '--user', boot.user_id];
  assert.deepEqual(await store.json('users', 'lock', ...who), { user_id: boot.user_id, locked: true });
  const whileLocked = await store.withApp((api) => api.authenticate(boot.access_key_id, boot.secret_key));
  assert.equal(whileLocked.status, 401);
  assert.deepEqual(await store.json('users', 'unlock', ...who), { user_id: boot.user_id, locked: false });
  failedWith(await store.run('users', 'lock', '--tenant', boot.tenant_id, '--user', SOME_UUID), 1, /no user/);
  const unlocked = await store.withApp((api) => api.authenticate(boot.access_key_id, boot.secret_key));
  assert.equal(unlocked.status, 200);
});
