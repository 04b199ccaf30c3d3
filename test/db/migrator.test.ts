import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { type Executor, openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { migrate } from '../../src/db/migrator.js';
import { createTestDatabase } from '../support/database.js';

const quiet = { warn() {}, error() {} };

test('migrations are applied once, in order, and recorded', async () => {
  const { owner: db, close } = await createTestDatabase(); // already migrated; the owner migrates
  try {
    assert.deepEqual(await migrate(db), [], 'a second run applies nothing');
    const { rows } = await db.query<{ id: string }>('select id from schema_migrations order by id');
    assert.deepEqual(
      rows.map((row) => row.id),
      migrations.map((migration) => migration.id),
    );
  } finally {
    await close();
  }
});

test('runtime states and identity JSON are compressed with lz4 where the server has it; otherwise they keep pglz', async () => {
  const { owner: db, close } = await createTestDatabase();
  try {
    // default_toast_compression offers lz4 exactly when the server was built with it (Debian's
    // PostgreSQL is; PGlite is not).
    const { rows: offered } = await db.query<{ lz4: boolean }>(
      `select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`,
    );
    const { rows } = await db.query<{ name: string; method: string }>(
      `select attrelid::regclass::text || '.' || attname as name, attcompression::text as method
         from pg_attribute
        where (attrelid = 'runtime_workloads'::regclass and attname = 'state')
           or (attrelid = 'identities'::regclass
               and attname in ('rbac_objects', 'access_json', 'assigned_roles_json'))
        order by 1`,
    );
    // 'l' is lz4; '' is the server's default_toast_compression (pglz).
    const method = offered[0]?.lz4 ? 'l' : '';
    assert.deepEqual(
      rows.map((row) => [row.name, row.method]),
      [
        ['identities.access_json', method],
        ['identities.assigned_roles_json', method],
        ['identities.rbac_objects', method],
        ['runtime_workloads.state', method],
      ],
    );
    if (db.engine === 'postgres' && process.env.CI)
      assert.ok(offered[0]?.lz4, 'the PostgreSQL 15 of CI has lz4');
  } finally {
    await close();
  }
});

test('the keys a push looks up by the thousand keep ten most common values, so planning those lookups stays cheap', async () => {
  const { owner: db, close } = await createTestDatabase();
  try {
    const { rows } = await db.query<{ name: string; target: number | string }>(
      `select attrelid::regclass::text || '.' || attname as name, attstattarget as target
         from pg_attribute
        where (attrelid = 'cluster_resources'::regclass and attname in ('id', 'uid', 'name', 'kind'))
           or (attrelid = 'identity_source_links'::regclass and attname in ('uid', 'key'))
           or (attrelid = 'findings'::regclass and attname = 'source_key')
        order by 1`,
    );
    // -1 (or null on PostgreSQL 17 and later, PGlite's) is the default target.
    assert.deepEqual(
      rows.map((row) => [row.name, row.target === null ? -1 : Number(row.target)]),
      [
        ['cluster_resources.id', 10],
        ['cluster_resources.kind', -1],
        ['cluster_resources.name', 10],
        ['cluster_resources.uid', 10],
        ['findings.source_key', 10],
        ['identity_source_links.key', 10],
        ['identity_source_links.uid', 10],
      ],
    );
  } finally {
    await close();
  }
});

test('a failing migration leaves the schema as it was', async () => {
  const { owner: db, close } = await createTestDatabase(); // the owner migrates
  try {
    const broken = [
      ...migrations,
      { id: '9998-good', sql: 'create table migration_probe (id int)' },
      { id: '9999-bad', sql: 'select * from no_such_table' },
    ];
    await assert.rejects(migrate(db, broken));
    const { rows } = await db.query(
      `select 1 from information_schema.tables where table_name = 'migration_probe'`,
    );
    assert.equal(rows.length, 0, 'the good migration of the failed batch was rolled back');
    const applied = await db.query(`select 1 from schema_migrations where id like '999%'`);
    assert.equal(applied.rows.length, 0);
  } finally {
    await close();
  }
});

test('the tables a migration rewrites are vacuumed after it commits, so index-only scans stay off the heap', async () => {
  const { owner: db, close } = await createTestDatabase(); // the owner migrates
  // Two tables filled, then rewritten by a stored generated column: only the first is named.
  // Autovacuum stays off them, so only the migrator can mark their pages.
  const rewrite = (table: string) => `
    create table ${table} (id int primary key) with (autovacuum_enabled = false);
    insert into ${table} select generate_series(1, 5000);
    alter table ${table} add column twice int generated always as (id * 2) stored;`;
  try {
    const applied = await migrate(db, [
      ...migrations,
      {
        id: '9980-rewrite',
        sql: rewrite('rewritten_probe') + rewrite('unnamed_probe'),
        vacuumAfter: ['rewritten_probe'],
      },
    ]);
    assert.deepEqual(applied, ['9980-rewrite']);
    const { rows } = await db.query<{ relname: string; pages: number; visible: number }>(
      `select relname, relpages as pages, relallvisible as visible from pg_class
        where relname in ('rewritten_probe', 'unnamed_probe') order by relname`,
    );
    const rewritten = rows.find((row) => row.relname === 'rewritten_probe')!;
    assert.ok(rewritten.pages > 10, `${rewritten.pages} pages`);
    assert.equal(rewritten.visible, rewritten.pages, 'every page of the named table is all-visible');
    assert.equal(rows.find((row) => row.relname === 'unnamed_probe')?.visible, 0, 'the other is not');
    assert.deepEqual(await migrate(db, [...migrations, { id: '9980-rewrite', sql: '' }]), []);
  } finally {
    await close();
  }
});

test('vacuum takes a plain table name and nothing else', async () => {
  const { owner: db, close } = await createTestDatabase();
  try {
    await assert.rejects(db.vacuum('probe; drop table tenants'), /not a plain table name/);
    const { rows } = await db.query(`select 1 from pg_class where relname = 'tenants'`);
    assert.equal(rows.length, 1);
  } finally {
    await close();
  }
});

test('concurrent starts on PostgreSQL serialise on the advisory lock', {
  skip: !process.env.DATABASE_URL,
}, async () => {
  const { ownerUrl: url, close } = await createTestDatabase(); // the owner migrates
  const extra = [
    ...migrations,
    { id: '9990-probe', sql: 'create table concurrent_probe (id int primary key)' },
  ];
  const processes = await Promise.all(
    [1, 2, 3, 4].map(() => openDatabase(testConfig({ DATABASE_URL: url }), quiet)),
  );
  try {
    const results = await Promise.all(processes.map((db) => migrate(db, extra)));
    const appliedBy = results.filter((applied) => applied.includes('9990-probe'));
    assert.equal(appliedBy.length, 1, 'exactly one process applied the new migration');
  } finally {
    await Promise.all(processes.map((db) => db.close()));
    await close();
  }
});

/** Tables, columns, indexes, policies, functions and grants: what a test database starts with. */
async function schemaOf(db: Executor) {
  const { rows } = await db.query<{ item: string }>(
    `select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
            || ' ' || coalesce(column_default, '') as item
       from information_schema.columns where table_schema = 'public'
     union all
     select 'index ' || indexdef from pg_indexes where schemaname = 'public'
     union all
     select 'policy ' || tablename || ' ' || policyname || ' ' || coalesce(qual, '') || ' '
            || coalesce(with_check, '') from pg_policies where schemaname = 'public'
     union all
     select 'function ' || p.proname || ' ' || md5(p.prosrc) from pg_proc p
      where p.pronamespace = 'public'::regnamespace
     union all
     select 'grant ' || grantee || ' ' || table_name || ' ' || privilege_type
       from information_schema.role_table_grants where table_schema = 'public'
     union all
     select 'migration ' || id from schema_migrations
     order by 1`,
  );
  return rows.map((row) => row.item);
}

test('the shared migrated copy every test starts from is what the migrations make of an empty store', async () => {
  const scratch = await createTestDatabase({ fromScratch: true });
  const copy = await createTestDatabase();
  try {
    const made = await schemaOf(scratch.owner);
    assert.ok(made.length > 100, `a migrated schema has hundreds of items, got ${made.length}`);
    assert.deepEqual(await schemaOf(copy.owner), made);
  } finally {
    await scratch.close();
    await copy.close();
  }
});
