import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { maintainEmbeddedStore } from './embedded-maintenance.js';

let database: TestDatabase | undefined;
after(() => database?.close());

const probe = 'public.maintenance_probe';

async function statsOf(db: TestDatabase['db']) {
  const { rows } = await db.query<{ reltuples: number; dead: number; analyzed: boolean; allVisible: number }>(
    `select c.reltuples::float8 as reltuples, s.n_dead_tup as dead, s.last_analyze is not null as analyzed,
            c.relallvisible as "allVisible"
       from pg_class c join pg_stat_user_tables s on s.relid = c.oid where c.relname = 'maintenance_probe'`,
  );
  return rows[0];
}

test('a round analyzes a table past the analyze threshold, vacuums one past the insert or dead-row threshold, then rests', {
  skip: process.env.DATABASE_URL ? 'PGlite only: PostgreSQL runs its own autovacuum' : false,
}, async () => {
  database = await createTestDatabase();
  const db = database.db;
  await db.exec(`create table ${probe} (id int primary key, note text)`);
  await db.exec(`insert into ${probe} select g, md5(g::text) from generate_series(1, 2000) g`);
  const loaded = await statsOf(db);
  assert.equal(loaded?.analyzed, false, 'PGlite never analyzes by itself');
  assert.equal(loaded?.allVisible, 0, 'nor vacuums: no page is marked all-visible');

  // 2,000 inserted rows are past 1,000 + 20% of 2,000: vacuumed although none is dead.
  const first = await maintainEmbeddedStore(db);
  assert.ok(first.analyzed.includes(probe), `analyzed: ${first.analyzed.join(', ')}`);
  assert.ok(first.vacuumed.includes(probe), `vacuumed: ${first.vacuumed.join(', ')}`);
  // The longest statement is named, for the log line that explains a latency spike.
  assert.match(first.longest?.statement ?? '', /^(analyze|vacuum) /);
  assert.ok((first.longest?.ms ?? -1) >= 0);
  const maintained = await statsOf(db);
  assert.equal(maintained?.reltuples, 2000, 'the planner now knows the row count');
  assert.ok((maintained?.allVisible ?? 0) > 0, 'index-only scans can skip the heap of its pages');
  // Analyzed with the embedded store's small sample: 10 histogram buckets, not PostgreSQL's 100,
  // and the setting ended with the analyze's transaction.
  const { rows: histogram } = await db.query<{ bounds: number; target: string }>(
    `select array_length(histogram_bounds::text::text[], 1) as bounds, current_setting('default_statistics_target') as target
       from pg_stats where tablename = 'maintenance_probe' and attname = 'note'`,
  );
  assert.deepEqual(histogram, [{ bounds: 11, target: '100' }]);

  // 1,000 more: past 50 + 10% of 3,000 for an analyze, short of 1,000 + 20% of 3,000 for a vacuum.
  await db.exec(`insert into ${probe} select g, md5(g::text) from generate_series(2001, 3000) g`);
  const second = await maintainEmbeddedStore(db);
  assert.ok(second.analyzed.includes(probe), `analyzed: ${second.analyzed.join(', ')}`);
  assert.ok(!second.vacuumed.includes(probe), `vacuumed: ${second.vacuumed.join(', ')}`);

  await db.exec(`delete from ${probe} where id <= 1800`);
  const third = await maintainEmbeddedStore(db);
  assert.ok(third.vacuumed.includes(probe), `vacuumed: ${third.vacuumed.join(', ')}`);
  assert.ok(third.analyzed.includes(probe), '1,800 changed rows are past 50 + 10% of 3,000');
  assert.equal((await statsOf(db))?.dead, 0);

  const fourth = await maintainEmbeddedStore(db);
  assert.ok(!fourth.analyzed.includes(probe) && !fourth.vacuumed.includes(probe), 'nothing changed since');
  if (fourth.analyzed.length + fourth.vacuumed.length === 0) assert.equal(fourth.longest, undefined);
});

test('a table filled before a restart (activity counters at zero) is vacuumed by its unmarked pages', {
  skip: process.env.DATABASE_URL ? 'PGlite only: PostgreSQL runs its own autovacuum' : false,
}, async () => {
  database ??= await createTestDatabase();
  const db = database.db;
  await db.exec('create table public.restart_probe (id int primary key, note text)');
  await db.exec('insert into public.restart_probe select g, md5(g::text) from generate_series(1, 30000) g');
  await db.exec('analyze public.restart_probe');
  // What PGlite's next start looks like: pg_class kept, the activity counters gone.
  await db.query('select pg_stat_reset()');
  const round = await maintainEmbeddedStore(db);
  assert.ok(round.vacuumed.includes('public.restart_probe'), `vacuumed: ${round.vacuumed.join(', ')}`);
  const { rows } = await db.query<{ pages: number; allVisible: number }>(
    `select relpages as pages, relallvisible as "allVisible" from pg_class where relname = 'restart_probe'`,
  );
  assert.ok(rows[0]!.pages > 100 && rows[0]!.allVisible === rows[0]!.pages, JSON.stringify(rows[0]));
  const next = await maintainEmbeddedStore(db);
  assert.ok(!next.vacuumed.includes('public.restart_probe'), 'once marked, it rests');
});
