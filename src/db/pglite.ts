import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { lockDataDir } from './data-dir-lock.js';
import { type Database, type Executor, parseNumber, TYPE_OIDS } from './database.js';

function executorOf(target: PGlite | Transaction): Executor {
  return {
    async query(sql, params) {
      const result = await target.query(sql, params as unknown[] | undefined);
      // PGlite reports affectedRows 0 for a SELECT, where pg counts the rows returned: agree with pg.
      return {
        rows: result.rows as never[],
        rowCount: Math.max(result.affectedRows ?? 0, result.rows.length),
      };
    },
    async exec(sql) {
      await target.exec(sql);
    },
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
 * PGlite keeps one single-user Postgres inside this process. Its own mutex serialises queries and
 * transactions, so no pool is needed; a data directory is locked so a second process cannot
 * open (and corrupt) it.
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
      parsers: { [TYPE_OIDS.int8]: parseNumber, [TYPE_OIDS.numeric]: parseNumber },
      // the trigram search index of inventory containers (migration 0015)
      extensions: { pg_trgm, btree_gin },
    });
  } catch (error) {
    await unlock?.();
    throw error;
  }
  const base = executorOf(pglite);
  return {
    engine: 'pglite',
    ...base,
    transaction: (work) => pglite.transaction((tx) => work(executorOf(tx))),
    async ping() {
      await pglite.query('select 1');
    },
    async dumpDataDir() {
      await pglite.exec('checkpoint');
      return pglite.dumpDataDir('none');
    },
    async close() {
      await pglite.close();
      await unlock?.();
    },
  };
}
