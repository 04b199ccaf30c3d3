import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.js';

const skip = process.env.DATABASE_URL ? 'PGlite only: the embedded store runs on this thread' : false;
let database: TestDatabase;
before(async () => {
  if (!skip) database = await createTestDatabase();
});
after(() => database?.close());

test('queued statements leave the event loop a turn between them, in the order they were asked for', {
  skip,
}, async () => {
  const order: number[] = [];
  const statements = Array.from({ length: 40 }, (_, i) =>
    database.db.query<{ i: number }>('select $1::int as i', [i]).then(({ rows }) => order.push(rows[0]!.i)),
  );
  // Stands for a socket read: a request that arrives while the queue is long must be able to join
  // it before the queue has run out, not after.
  const doneWhenTheLoopTurned = await new Promise<number>((resolve) =>
    setImmediate(() => resolve(order.length)),
  );
  await Promise.all(statements);

  assert.ok(
    doneWhenTheLoopTurned < 5,
    `${doneWhenTheLoopTurned} of 40 statements ran before the loop turned`,
  );
  assert.deepEqual(
    order,
    Array.from({ length: 40 }, (_, i) => i),
  );
});

test('a statement on an idle store also waits for the next turn: the callback that asked returns first', {
  skip,
}, async () => {
  let done = false;
  const statement = database.db.query('select 1').then(() => {
    done = true;
  });
  // Stands for the rest of a socket's callback and the sockets after it in the same turn.
  const doneBeforeTheTurn = await new Promise<boolean>((resolve) => setImmediate(() => resolve(done)));
  await statement;
  assert.equal(doneBeforeTheTurn, false);
});

test('a failed statement or transaction does not hold up the ones queued behind it', { skip }, async () => {
  const failed = database.db.query('select 1/0');
  const rolledBack = database.db.transaction(async (tx) => {
    await tx.query('select 1');
    throw new Error('rolled back');
  });
  const next = database.db.query<{ ok: boolean }>('select true as ok');
  await assert.rejects(failed, /division by zero/);
  await assert.rejects(rolledBack, /rolled back/);
  assert.deepEqual((await next).rows, [{ ok: true }]);
});

test('closing waits for the statements queued before it', { skip }, async () => {
  const own = await createTestDatabase();
  const queued = own.db.query<{ one: number }>('select 1 as one');
  const closed = own.close();
  assert.deepEqual((await queued).rows, [{ one: 1 }]);
  await closed;
});
