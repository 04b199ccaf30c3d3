import { mkdirSync } from 'node:fs';
import { setImmediate as nextTurnOfTheLoop } from 'node:timers/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { lockDataDir } from './data-dir-lock.js';
import type { Database, Executor, QueryResult, Statement } from './database.js';
import { runStatements } from './pglite-statements.js';

/** Statements in PGlite's session: on their own, or inside the transaction `tx` holds. */
function executorOf(pglite: PGlite, tx?: Transaction): Executor {
  const run = async (statements: readonly Statement[]) => {
    if (tx?.closed) throw new Error('PGlite: statement after its transaction ended');
    return runStatements(pglite, statements, { inTransaction: tx !== undefined });
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
 * PGlite runs a statement synchronously on this thread. When its own mutex hands the store from
 * one waiting statement to the next, the next one starts in the same chain of microtasks, and so
 * on through the whole queue: the event loop reads no socket until the queue is empty. Under a
 * steady load it never is, and a connection whose request had not been read yet waited while the
 * connections already being served went round again and again: at 16 connections, each
 * connection's first response came up to 0.75 s late, where the queue was 0.1 s long
 * (docs/performance.md, "Fix 35"). Waiting for the loop's next turn before each piece lets every
 * request that has arrived join the queue first.
 */
function turnByTurn() {
  let tail: Promise<unknown> = Promise.resolve();
  let pieces = 0;
  return function take<T>(work: () => Promise<T>): Promise<T> {
    // An idle store starts the work at once; only a piece that waited for another yields first.
    const turn = pieces++ === 0 ? work() : tail.then(() => nextTurnOfTheLoop()).then(work);
    tail = turn.then(
      () => pieces--,
      () => pieces--,
    );
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
  const base = executorOf(pglite);
  // Statements inside a transaction are not queued again: the transaction holds the store.
  const inTurn = turnByTurn();
  return {
    engine: 'pglite',
    query: (sql, params) => inTurn(() => base.query(sql, params)),
    queryAll: (statements) => inTurn(() => base.queryAll!(statements)),
    exec: (sql) => inTurn(() => base.exec(sql)),
    transaction: (work) => inTurn(() => pglite.transaction((tx) => work(executorOf(pglite, tx)))),
    async ping() {
      await inTurn(() => base.query('select 1'));
    },
    dumpDataDir: () =>
      inTurn(async () => {
        await pglite.exec('checkpoint');
        return pglite.dumpDataDir('none');
      }),
    async close() {
      await pglite.close();
      await unlock?.();
    },
  };
}
