/**
 * Row-level security, the second wall (docs/security.md, "Row-level security"): straight at the
 * database, through the application's own connection (the posture_app role), without the services'
 * scoping. PostgreSQL only: PGlite runs as its superuser, whom no policy binds (the role check is
 * shown refusing exactly that, on both engines).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig, testConfig } from '../../src/config.js';
import { AppRoleError, appRoleProblems, checkAppRole } from '../../src/db/app-role.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { type DataScope, withScope, withSystemScope } from '../../src/db/scope.js';
import { newId } from '../../src/http/ids.js';
import { createTenancyService } from '../../src/modules/tenancy/service.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { serverBundle } from '../support/server-bundle.js';

const onPostgres = Boolean(process.env.DATABASE_URL);
const skip = onPostgres ? false : 'row-level security binds only on PostgreSQL: set DATABASE_URL';
const quiet = { warn() {}, error() {} };

interface World {
  tenantA: string;
  accountA1: string;
  accountA2: string;
  tenantB: string;
  accountB: string;
  clusters: Record<'a1' | 'a2' | 'b', string>;
  userB: string;
}

let database: TestDatabase;
let world: World;

async function insertCluster(owner: Database, accountId: string, name: string): Promise<string> {
  const id = newId();
  const createdBy = newId();
  await owner.query('insert into clusters (account_id, id, name, created_by) values ($1, $2, $3, $4)', [
    accountId,
    id,
    name,
    createdBy,
  ]);
  return id;
}

const tenantScope = (tenantId: string, accountIds: 'all' | string[]): DataScope => ({
  kind: 'tenant',
  tenantId,
  accountIds,
});

async function clusterNames(db: Database, scope: DataScope | undefined): Promise<string[]> {
  const read = () => db.query<{ name: string }>('select name from clusters order by name');
  const { rows } = await (scope ? withScope(scope, read) : read());
  return rows.map((row) => row.name);
}

before(async () => {
  database = await createTestDatabase();
  if (!onPostgres) return;
  const tenancy = createTenancyService({ db: database.owner, pepper: 'p'.repeat(40) });
  const a = await tenancy.bootstrap({ tenant: `rls-a-${newId()}`, account: 'a1' });
  const a2 = await tenancy.createAccount({ tenantId: a.tenant_id, name: 'a2' });
  const b = await tenancy.bootstrap({ tenant: `rls-b-${newId()}`, account: 'b' });
  world = {
    tenantA: a.tenant_id,
    accountA1: a.account_id,
    accountA2: a2.account_id,
    tenantB: b.tenant_id,
    accountB: b.account_id,
    userB: b.user_id,
    clusters: {
      a1: await insertCluster(database.owner, a.account_id, 'cluster-a1'),
      a2: await insertCluster(database.owner, a2.account_id, 'cluster-a2'),
      b: await insertCluster(database.owner, b.account_id, 'cluster-b'),
    },
  };
});
after(() => database.close());

describe('row-level security policies, through the application role', { skip }, () => {
  test('a tenant sees its own accounts rows and nothing of another tenant, even asked by id', async () => {
    const { db } = database;
    assert.deepEqual(await clusterNames(db, tenantScope(world.tenantA, 'all')), ['cluster-a1', 'cluster-a2']);
    assert.deepEqual(await clusterNames(db, tenantScope(world.tenantB, 'all')), ['cluster-b']);
    const byId = await withScope(tenantScope(world.tenantA, 'all'), () =>
      db.query('select id from clusters where account_id = $1 and id = $2', [
        world.accountB,
        world.clusters.b,
      ]),
    );
    assert.equal(byId.rowCount, 0, "tenant A read tenant B's cluster by its id");
    const users = await withScope(tenantScope(world.tenantA, 'all'), () =>
      db.query('select id from users where id = $1', [world.userB]),
    );
    assert.equal(users.rowCount, 0, "tenant A read tenant B's user");
    const tenants = await withScope(tenantScope(world.tenantA, 'all'), () =>
      db.query<{ id: string }>('select id from tenants'),
    );
    assert.deepEqual(
      tenants.rows.map((row) => row.id),
      [world.tenantA],
    );
  });

  test('an account-scoped key sees its one account, not its sibling', async () => {
    const scope = tenantScope(world.tenantA, [world.accountA1]);
    assert.deepEqual(await clusterNames(database.db, scope), ['cluster-a1']);
  });

  test("a forged account list cannot cross tenants: B's account under A's tenant is nothing", async () => {
    const scope = tenantScope(world.tenantA, [world.accountA1, world.accountB]);
    assert.deepEqual(await clusterNames(database.db, scope), ['cluster-a1']);
  });

  test("updates and deletes of another tenant's rows touch nothing; inserts into it are refused", async () => {
    const { db, owner } = database;
    const scope = tenantScope(world.tenantA, 'all');
    const updated = await withScope(scope, () =>
      db.query("update clusters set name = 'stolen' where id = $1", [world.clusters.b]),
    );
    assert.equal(updated.rowCount, 0);
    const deleted = await withScope(scope, () =>
      db.transaction((tx) => tx.query('delete from users where id = $1', [world.userB])),
    );
    assert.equal(deleted.rowCount, 0);
    await assert.rejects(
      withScope(scope, () => insertCluster(db, world.accountB, 'planted')),
      /row-level security/,
    );
    // Moving an own row into the other tenant is a write check too.
    await assert.rejects(
      withScope(scope, () =>
        db.query('update clusters set account_id = $2 where id = $1', [world.clusters.a1, world.accountB]),
      ),
      /row-level security|foreign key/,
    );
    const { rows } = await owner.query<{ name: string }>('select name from clusters where id = $1', [
      world.clusters.b,
    ]);
    assert.deepEqual(rows, [{ name: 'cluster-b' }], "B's cluster is unchanged");
    assert.equal((await owner.query('select 1 from users where id = $1', [world.userB])).rowCount, 1);
  });

  test('no scope at all: no rows, and writes are refused (fail closed)', async () => {
    const { db } = database;
    assert.deepEqual(await clusterNames(db, undefined), []);
    assert.equal((await db.query('select id from accounts')).rowCount, 0);
    assert.equal((await db.query('select id from tenants')).rowCount, 0);
    await assert.rejects(insertCluster(db, world.accountA1, 'unscoped'), /row-level security/);
    assert.equal((await db.query("update clusters set name = 'x'")).rowCount, 0);
  });

  test('the system scope sees every tenant', async () => {
    const names = await clusterNames(database.db, { kind: 'system' });
    for (const name of ['cluster-a1', 'cluster-a2', 'cluster-b']) assert.ok(names.includes(name), name);
  });

  test("a pooled connection never carries the previous statement's scope", async () => {
    const single = await openDatabase(
      testConfig({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: 1 }),
      quiet,
    );
    try {
      assert.ok((await withSystemScope(() => clusterNames(single, undefined))).length >= 3);
      assert.deepEqual(await clusterNames(single, undefined), [], 'the same connection, no scope');
      await withSystemScope(() => single.transaction((tx) => tx.query('select 1 from clusters')));
      assert.deepEqual(await clusterNames(single, tenantScope(world.tenantB, 'all')), ['cluster-b']);
      assert.deepEqual(await clusterNames(single, undefined), []);
    } finally {
      await single.close();
    }
  });

  test('every table with an account_id or a tenant_id has the policy; the catalogs stay global', async () => {
    const { rows } = await database.owner.query<{ relname: string; rls: boolean; policies: number }>(
      `select c.relname, c.relrowsecurity as rls,
              (select count(*) from pg_policy p where p.polrelid = c.oid and p.polname = 'posture_scope') as policies
         from pg_class c
        where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
          and exists (select 1 from pg_attribute a where a.attrelid = c.oid and not a.attisdropped
                        and a.attname in ('account_id', 'tenant_id'))`,
    );
    assert.ok(rows.length >= 30, `only ${rows.length} owned tables found`);
    const open = rows.filter((row) => !row.rls || row.policies !== 1).map((row) => row.relname);
    assert.deepEqual(open, [], 'tables without row-level security');
    const global = await database.owner.query<{ relrowsecurity: boolean }>(
      "select relrowsecurity from pg_class where relname in ('kev_entries', 'epss_scores', 'feed_imports')",
    );
    assert.equal(global.rowCount, 3);
    assert.ok(global.rows.every((row) => !row.relrowsecurity));
  });

  test('the boot check accepts the application role and refuses the owner', async () => {
    await checkAppRole(database.db);
    await assert.rejects(checkAppRole(database.owner), (error: unknown) => {
      assert.ok(error instanceof AppRoleError);
      assert.match(error.message, /owns \(or is a member of the owner of\) tables: /);
      assert.match(error.message, /DATABASE_MIGRATION_URL/);
      return true;
    });
  });
});

test('the server refuses to start connected as the owner, naming the fix', { skip }, async () => {
  const run = spawnSync(process.execPath, [await serverBundle()], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: database.ownerUrl,
      DEMO: 'false',
      PORT: '0',
      LOG_LEVEL: 'silent',
      POSTURE_SECRET: 's'.repeat(40),
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /^posture: DATABASE_URL's role would bypass row-level security: role \w+ owns/m);
  assert.match(run.stderr, /DATABASE_MIGRATION_URL/);
});

test("the switch that turns the services' scoping off is refused outside the test suite", () => {
  assert.throws(
    () => loadConfig({ POSTURE_UNSAFE_DISABLE_APP_SCOPING: 'true', NODE_ENV: 'production' }),
    (error: unknown) => error instanceof ConfigError && /for the test suite only/.test(error.message),
  );
  assert.equal(
    loadConfig({ POSTURE_UNSAFE_DISABLE_APP_SCOPING: 'true', NODE_ENV: 'test' })
      .POSTURE_UNSAFE_DISABLE_APP_SCOPING,
    true,
  );
  assert.equal(loadConfig({}).DATABASE_RLS_CHECK, 'on');
});

test('the boot check refuses a superuser (PGlite runs as one)', async () => {
  const pglite = await openDatabase(testConfig({ DATABASE_URL: undefined }), quiet);
  try {
    const problems = await appRoleProblems(pglite);
    assert.ok(
      problems.some((problem) => /is a superuser/.test(problem)),
      problems.join('; '),
    );
    await assert.rejects(checkAppRole(pglite), AppRoleError);
  } finally {
    await pglite.close();
  }
});
