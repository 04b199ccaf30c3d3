import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { maintainEmbeddedStore } from './embedded-maintenance.js';

let database: TestDatabase | undefined;
after(() => database?.close());

const probe = 'public.maintenance_probe';

async function statsOf(db: TestDatabase['db']) {
  const { rows } = await db.query<{ reltuples: number; dead: number; analyzed: boolean }>(
    `select c.reltuples::float8 as reltuples, s.n_dead_tup as dead, s.last_analyze is not null as analyzed
       from pg_class c join pg_stat_user_tables s on s.relid = c.oid where c.relname = 'maintenance_probe'`,
  );
  return rows[0];
}

test('a round analyzes a table past the analyze threshold, vacuums one past the dead-row threshold, then rests', {
  skip: process.env.DATABASE_URL ? 'PGlite only: PostgreSQL runs its own autovacuum' : false,
}, async () => {
  database = await createTestDatabase();
  const db = database.db;
  await db.exec(`create table ${probe} (id int primary key, note text)`);
  await db.exec(`insert into ${probe} select g, md5(g::text) from generate_series(1, 1000) g`);
  assert.equal((await statsOf(db))?.analyzed, false, 'PGlite never analyzes by itself');

  const first = await maintainEmbeddedStore(db);
  assert.ok(first.analyzed.includes(probe), `analyzed: ${first.analyzed.join(', ')}`);
  assert.equal((await statsOf(db))?.reltuples, 1000, 'the planner now knows the row count');

  await db.exec(`delete from ${probe} where id <= 600`);
  const second = await maintainEmbeddedStore(db);
  assert.ok(second.vacuumed.includes(probe), `vacuumed: ${second.vacuumed.join(', ')}`);
  assert.ok(second.analyzed.includes(probe), '600 changed rows are past 50 + 10% of 1,000');
  assert.equal((await statsOf(db))?.dead, 0);

  const third = await maintainEmbeddedStore(db);
  assert.ok(!third.analyzed.includes(probe) && !third.vacuumed.includes(probe), 'nothing changed since');
});
