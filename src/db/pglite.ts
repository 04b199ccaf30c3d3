import { mkdirSync } from 'node:fs';
import { setImmediate as nextTurnOfTheLoop } from 'node:timers/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { lockDataDir } from './data-dir-lock.js';
import { type Database, type Executor, type QueryResult, type Statement, tableName } from './database.js';
import { runStatements } from './pglite-statements.js';
import { PreparedStatements } from './prepared-statements.js';

/**
 * How many statements PGlite's one session keeps prepared (prepared-statements.ts): the whole
 * server shares it, so it holds what a pooled PostgreSQL connection holds, and more.
 */
const PREPARED_STATEMENTS = 300;

/**
 * Statements inside transactions (ingestion) go unnamed, planned for their values every time, as
 * on PostgreSQL. Prepared, the generic plans PostgreSQL kept for some of them made Kubernetes
 * ingestion 30% slower (1,540 -> 1,060 objects/s); with plan_cache_mode = force_custom_plan the
 * rate came back (docs/performance.md, "Fix 37").
 */
const UNNAMED = new PreparedStatements(0);

/** Statements in PGlite's session: on their own, or inside the transaction `tx` holds. */
function executorOf(pglite: PGlite, session: PreparedStatements, tx?: Transaction): Required<Executor> {
  const run = async (statements: readonly Statement[]) => {
    if (tx?.closed) throw new Error('PGlite: statement after its transaction ended');
    return runStatements(pglite, session, statements, { inTransaction: tx !== undefined });
  };
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const [result] = await run([{ sql, params }]);
      return result as unknown as QueryResult<Row>;
    },
    queryAll: run,
    async exec(sql) {
      await (tx ?? pglite).exec(sql);
    },
  };
}

/**
 * Runs the store's work one piece at a time, in the order it was asked for, each piece starting on
 * a later turn of the event loop.
 *
 * PGlite runs a statement synchronously on this thread, inside whatever callback asked for it.
 * Left to itself, one turn of the loop served every request already read, in full: a statement
 * that waited for another started in the same chain of microtasks as the one before it, and a
 * request that found the store idle ran on to its response inside its socket's callback. Node
 * accepted one new connection per turn (as measured here), and under 16 busy connections a turn
 * took 60 to 100 ms: a new connection's first response waited up to 0.75 s while the connections
 * already served went round again and again (docs/performance.md, "Fix 35"). A piece that starts
 * on a later turn lets the loop read every socket with data, so requests join the queue in the
 * order they arrived, and accept the next connection within a few milliseconds.
 */
function turnByTurn() {
  let tail: Promise<unknown> = Promise.resolve();
  return function take<T>(work: () => Promise<T>): Promise<T> {
    // Even when the store is idle: work run at once would run on to its response in the socket's
    // callback. The turn costs microseconds when nothing else is waiting.
    const turn = tail.then(() => nextTurnOfTheLoop()).then(work);
    tail = turn.catch(() => undefined);
    return turn;
  };
}

export interface PgliteDatabase extends Database {
  /** A tarball of the whole data directory, which `openPglite`'s `image` restores. */
  dumpDataDir(): Promise<Blob>;
}

export interface PgliteOptions {
  /**
   * Start an in-memory store from this image of a data directory (from `dumpDataDir`) instead
   * of an empty cluster: restoring skips initdb, which is most of the cost of a new store. The
   * tests start every store from one migrated image (test/support/pglite-image.ts).
   */
  image?: Blob;
}

/**
 * PGlite keeps one single-user Postgres inside this process. Statements and transactions take
 * turns (`turnByTurn`), so no pool is needed; statements go through the wire protocol as pg would
 * send them (pglite-statements.ts); a data directory is locked so a second process cannot open
 * (and corrupt) it.
 */
export async function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<PgliteDatabase> {
  const inMemory = dataDir === ':memory:';
  let unlock: (() => Promise<void>) | undefined;
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    unlock = await lockDataDir(dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(inMemory ? {} : { dataDir }),
      ...(options.image ? { loadDataDir: options.image } : {}),
      // the trigram search index of inventory containers (migration 0015)
      extensions: { pg_trgm, btree_gin },
    });
  } catch (error) {
    await unlock?.();
    throw error;
  }
  const session = new PreparedStatements(PREPARED_STATEMENTS);
  const base = executorOf(pglite, session);
  // Statements inside a transaction are not queued again: the transaction holds the store.
  const inTurn = turnByTurn();
  return {
    engine: 'pglite',
    query: (sql, params) => inTurn(() => base.query(sql, params)),
    queryAll: (statements) => inTurn(() => base.queryAll(statements)),
    exec: (sql) => inTurn(() => base.exec(sql)),
    transaction: (work) => inTurn(() => pglite.transaction((tx) => work(executorOf(pglite, UNNAMED, tx)))),
    vacuum: (table) =>
      inTurn(async () => {
        await pglite.exec(`vacuum ${tableName(table)}`);
      }),
    async ping() {
      await inTurn(() => base.query('select 1'));
    },
    dumpDataDir: () =>
      inTurn(async () => {
        await pglite.exec('checkpoint');
        return pglite.dumpDataDir('none');
      }),
    // After the work already queued, as PGlite's own close waits for the statements in its queue.
    close: () =>
      inTurn(async () => {
        await pglite.close();
        await unlock?.();
      }),
  };
}
