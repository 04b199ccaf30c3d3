/**
 * One database interface over the two engines Posture runs on: PostgreSQL through a `pg` pool
 * (DATABASE_URL) and the embedded PGlite (the zero-setup default). Repositories only ever see an
 * `Executor`; services open transactions with `db.transaction`.
 *
 * @example
 *   const db = await openDatabase(config, logger);
 *   await db.transaction(async (tx) => { await tx.query('select 1'); });
 */
import type { Config } from '../config.js';

export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** One statement and its parameters. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** Something that runs SQL: the database itself or an open transaction. */
export interface Executor {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
  /** Runs several `;`-separated statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Runs statements whose parameters do not depend on each other's results (a list page and its
   * total, a recompute's writes) together, in order, in one round trip where the engine can
   * (PostgreSQL: postgres.ts, scoped-statement.ts; PGlite: one call into it,
   * pglite-statements.ts); see `queryAll`.
   */
  queryAll?(statements: readonly Statement[]): Promise<QueryResult<Record<string, unknown>>[]>;
}

/**
 * Each statement's result, in order. Together in one round trip on both engines; in one snapshot
 * on the pool, and in the open transaction (one snapshot each, as read committed takes them)
 * inside one. An executor without `queryAll` runs them one after the other.
 */
export function queryAll(
  db: Executor,
  statements: readonly Statement[],
): Promise<QueryResult<Record<string, unknown>>[]> {
  if (statements.length === 0) return Promise.resolve([]);
  if (db.queryAll) return db.queryAll(statements);
  return Promise.all(statements.map((statement) => db.query(statement.sql, statement.params)));
}

export interface Database extends Executor {
  readonly engine: 'postgres' | 'pglite';
  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T>;
  /**
   * PostgreSQL only: the bytes of a `COPY ... TO STDOUT` statement as they arrive, in the data
   * scope of the caller (taken when this is called), on a connection of its own. Stopping early
   * drops that connection (the server then abandons the statement). PGlite has no COPY stream.
   */
  copyOut?(sql: string): AsyncGenerator<Buffer>;
  /**
   * `VACUUM table`, outside any transaction and data scope (VACUUM refuses both): the owner's
   * maintenance after a migration that rewrote the table (migrator.ts).
   */
  vacuum(table: string): Promise<void>;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** `name` when it is a plain lowercase table name, to be written into SQL as it is; else throws. */
export function tableName(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain table name: ${JSON.stringify(name)}`);
  return name;
}

export interface DatabaseLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Opens the engine the configuration names: PostgreSQL when DATABASE_URL is set, else PGlite. */
export async function openDatabase(config: Config, logger: DatabaseLogger): Promise<Database> {
  if (config.DATABASE_URL) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(config.DATABASE_URL, logger, {
      poolSize: config.DATABASE_POOL_SIZE,
      preparedPerConnection: config.DATABASE_PREPARED_STATEMENTS,
    });
  }
  const { openPglite } = await import('./pglite.js');
  return openPglite(config.DATA_DIR);
}
