/**
 * The suite settles its PostgreSQL store before the list cases (settle-store.ts): the pages of a
 * table filled by a bulk load are marked all-visible, and its statistics count its rows.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../test/support/database.js';
import { settleStore } from './settle-store.js';

const skip = process.env.DATABASE_URL ? false : 'PostgreSQL only';

let database: TestDatabase;
before(async () => {
  if (!skip) database = await createTestDatabase();
});
after(() => database?.close());

test('a freshly loaded table ends all-visible and analyzed', { skip }, async () => {
  const owner = new pg.Client({ connectionString: database.ownerUrl! });
  await owner.connect();
  try {
    await owner.query('create table settle_probe (id int primary key, body text)');
    await owner.query(`insert into settle_probe select n, repeat('x', 200) from generate_series(1, 20000) n`);
    const state = async () =>
      (
        await owner.query<{ pages: number; visible: number; rows: number }>(
          `select relpages as pages, relallvisible as visible, reltuples::int as rows
             from pg_class where relname = 'settle_probe'`,
        )
      ).rows[0]!;
    assert.equal((await state()).visible, 0);

    await settleStore(database.ownerUrl!);

    const settled = await state();
    assert.ok(settled.pages > 0, JSON.stringify(settled));
    assert.equal(settled.visible, settled.pages);
    assert.equal(settled.rows, 20000);
  } finally {
    await owner.end();
  }
});
