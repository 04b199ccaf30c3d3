/**
 * `posture migrate`, `bootstrap` and `accounts create` in-process against a real store (a
 * temporary DATA_DIR, or a fresh PostgreSQL database with DATABASE_URL): what they print, what
 * they store, that the bootstrap key works against the real app, and that a duplicate is one line
 * that changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { migrations } from '../../src/db/migrations/index.js';
import { isUuid } from '../../src/http/ids.js';
import { type CliStore, createCliStore, failedWith, SOME_UUID, succeeded } from './cli-store.js';

const engine = process.env.DATABASE_URL ? 'postgres' : 'pglite';

let store: CliStore;
before(async () => {
  store = await createCliStore();
});
after(() => store.close());

test('migrate applies every migration once, then nothing', async () => {
  assert.deepEqual(await store.json('migrate'), { engine, applied: migrations.map((m) => m.id) });
  const again = await store.run('migrate');
  succeeded(again);
  assert.match(again.stdout, /^No pending migrations\.\n {2}engine: +\w+\n {2}applied: +-\n$/);
});

test('bootstrap --json prints the five fields and its tenant key works against the app', async () => {
  const boot = await store.bootstrap();
  assert.deepEqual(Object.keys(boot).sort(), [
    'access_key_id',
    'account_id',
    'secret_key',
    'tenant_id',
    'user_id',
  ]);
  for (const id of [boot.tenant_id, boot.account_id, boot.user_id]) assert.ok(isUuid(id), id);
  assert.match(boot.access_key_id, /^pak_/);
  assert.match(boot.secret_key, /^psk_/);
  await store.withApp(async (api) => {
    const { status, token } = await api.authenticate(boot.access_key_id, boot.secret_key);
    assert.equal(status, 200);
    const account = await api.get(`/accounts/${boot.account_id}`, token!);
    assert.equal(account.status, 200);
    assert.equal(account.body.name, 'main');
    assert.equal(account.body.parent_id, boot.tenant_id);
    const { rows } = await api.db.query<{ name: string; role: string; level: string }>(
      `select u.name, r.role, r.level from users u join role_assignments r on r.user_id = u.id
        where u.id = $1`,
      [boot.user_id],
    );
    assert.deepEqual(rows, [{ name: 'admin', role: 'admin', level: 'tenant' }]);
  });
});

test('bootstrap without --json prints a readable block holding a working key', async () => {
  const run = await store.run('bootstrap', '--tenant', 'readable', '--account', 'main', '--user', 'root');
  succeeded(run);
  assert.match(run.stdout, /^Tenant created\. .*shown once/);
  const field = (name: string) => new RegExp(`^ {2}${name}: +(\\S+)$`, 'm').exec(run.stdout)?.[1] ?? '';
  await store.withApp(async (api) => {
    assert.equal((await api.authenticate(field('access_key_id'), field('secret_key'))).status, 200);
  });
});

test('a duplicate tenant name is refused in one line and creates nothing', async () => {
  await store.json('bootstrap', '--tenant', 'twice', '--account', 'main');
  failedWith(
    await store.run('bootstrap', '--tenant', 'twice', '--account', 'other'),
    1,
    /tenant 'twice' already exists/,
  );
  const tenants = await store.withApp(
    async ({ db }) => (await db.query('select id from tenants where name = $1', ['twice'])).rows,
  );
  assert.equal(tenants.length, 1);
});

test('accounts create: a new account; a duplicate name or an unknown tenant refused in one line', async () => {
  const boot = await store.bootstrap();
  const account = await store.json('accounts', 'create', '--tenant', boot.tenant_id, '--name', 'staging');
  assert.ok(isUuid(account.account_id));
  assert.deepEqual(account, { account_id: account.account_id, tenant_id: boot.tenant_id, name: 'staging' });
  failedWith(
    await store.run('accounts', 'create', '--tenant', boot.tenant_id, '--name', 'staging'),
    1,
    new RegExp(`account 'staging' already exists in tenant ${boot.tenant_id}`),
  );
  failedWith(
    await store.run('accounts', 'create', '--tenant', SOME_UUID, '--name', 'x'),
    1,
    new RegExp(`tenant ${SOME_UUID} does not exist`),
  );
  const names = await store.withApp(
    async ({ db }) =>
      (
        await db.query<{ name: string }>('select name from accounts where tenant_id = $1 order by name', [
          boot.tenant_id,
        ])
      ).rows,
  );
  assert.deepEqual(names, [{ name: 'main' }, { name: 'staging' }]);
});

test('a data directory held by a running server is refused in one line', {
  skip: engine === 'postgres',
}, async () => {
  const run = await store.withApp(() => store.run('migrate'));
  failedWith(run, 1, /^posture: the data directory .* is in use by another Posture process/);
});
