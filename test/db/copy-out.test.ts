/**
 * `copyOut` (src/db/postgres.ts): a COPY ... TO STDOUT read as a stream, in the caller's data
 * scope, on a connection of its own that a COPY not read to its end does not hand back to the
 * pool. PostgreSQL only: PGlite has no COPY stream (the CVE report keeps its cursor there).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withScope, withSystemScope } from '../../src/db/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const postgresOnly = {
  skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: PGlite has no COPY stream',
};
let database: TestDatabase;
const tenants = [randomUUID(), randomUUID()];

before(async () => {
  database = await createTestDatabase();
  for (const [index, id] of tenants.entries())
    await database.owner.query('insert into tenants (id, name) values ($1, $2)', [id, `tenant ${index}`]);
});
after(() => database?.close());

async function bytesOf(chunks: AsyncGenerator<Buffer>): Promise<string> {
  const read: Buffer[] = [];
  for await (const chunk of chunks) read.push(chunk);
  return Buffer.concat(read).toString();
}

const copyOut = (sql: string) => {
  assert.ok(database.db.copyOut, 'PostgreSQL streams COPY');
  return database.db.copyOut(sql);
};

/** Backends of this database still running the abandoned COPY of the test below. */
const runningCopies = async () => {
  const { rows } = await database.owner.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and query like 'copy (select g, repeat%' and state = 'active'`,
  );
  return rows[0]?.n ?? 0;
};

test('the rows of the caller scope only, as CSV with a header', postgresOnly, async () => {
  const [mine] = tenants;
  const text = await withScope({ kind: 'tenant', tenantId: mine!, accountIds: [] }, () =>
    bytesOf(copyOut('copy (select id, name from tenants order by name) to stdout (format csv, header)')),
  );
  assert.equal(text, `id,name\n${mine},tenant 0\n`);
  const none = await bytesOf(copyOut('copy (select id from tenants) to stdout (format csv)'));
  assert.equal(none, '', 'no scope, no rows');
});

test('a large COPY arrives in several chunks, in order', postgresOnly, async () => {
  const chunks: Buffer[] = [];
  for await (const chunk of withSystemScope(() =>
    copyOut(`copy (select g, repeat('x', 100) from generate_series(1, 20000) g) to stdout (format csv)`),
  ))
    chunks.push(chunk);
  assert.ok(chunks.length > 1, `${chunks.length} chunks`);
  const lines = Buffer.concat(chunks).toString().trimEnd().split('\n');
  assert.equal(lines.length, 20000);
  assert.equal(lines[19999], `20000,${'x'.repeat(100)}`);
});

test('stopping early closes the connection; the pool goes on', postgresOnly, async () => {
  const stream = withSystemScope(() =>
    copyOut(`copy (select g, repeat('x', 1000) from generate_series(1, 1000000) g) to stdout (format csv)`),
  );
  const first = await stream.next();
  assert.equal(first.done, false);
  await stream.return(undefined);
  // The backend of the abandoned COPY goes away rather than finishing a million rows.
  let running = await runningCopies();
  for (let attempt = 0; attempt < 50 && running > 0; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    running = await runningCopies();
  }
  assert.equal(running, 0, 'no COPY left running');
  const after = await withSystemScope(() => database.db.query<{ one: number }>('select 1 as one'));
  assert.equal(after.rows[0]?.one, 1);
});

test('a failing statement rejects, in the scope it ran, and the pool goes on', postgresOnly, async () => {
  await assert.rejects(
    withSystemScope(() => bytesOf(copyOut('copy (select 1 / 0) to stdout (format csv)'))),
    /division by zero/,
  );
  await assert.rejects(
    withSystemScope(() => bytesOf(copyOut('copy (select nope from tenants) to stdout'))),
    /column "nope" does not exist/,
  );
  const { rows } = await withSystemScope(() => database.db.query<{ one: number }>('select 1 as one'));
  assert.equal(rows[0]?.one, 1);
});
