import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { type Database, type DatabaseLogger, type Executor, type Statement, tableName } from './database.js';
import { ROW_TYPES } from './pg-conversion.js';
import { currentScope, scopeStatement, setScopeSql } from './scope.js';
import {
  connectionStatements,
  queryAllInScope,
  queryAllInTransaction,
  queryInScope,
} from './scoped-statement.js';

function executorOf(client: pg.PoolClient): Executor {
  return {
    async query(sql, params) {
      const result = await client.query(sql, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
    // In order, in one round trip (scoped-statement.ts): a recompute's writes run while the
    // server computes what comes next (docs/performance.md, "Fix 69").
    async queryAll(statements) {
      const results = await queryAllInTransaction(client, statements);
      return results.map((result) => ({ rows: result.rows, rowCount: result.rowCount ?? 0 }));
    },
    async exec(sql) {
      await client.query(sql);
    },
  };
}

export interface PostgresOptions {
  poolSize: number;
  /** statements each connection keeps prepared (prepared-statements.ts); 0: none */
  preparedPerConnection: number;
}

export async function openPostgres(
  url: string,
  logger: DatabaseLogger,
  { poolSize, preparedPerConnection }: PostgresOptions,
): Promise<Database> {
  const statementsOf = connectionStatements(preparedPerConnection);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: ROW_TYPES,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // No JIT compilation: Posture's statements are short, and a plan whose estimated cost crosses
    // jit_above_cost (a deep page, a count over a large account) paid 10-15 ms of compilation on
    // every execution for a 15-30 ms query (docs/performance.md, "JIT").
    options: '-c jit=off',
  });
  // An idle client losing its connection (server restart) must not crash the process: the pool
  // drops it and the next query opens a new one.
  pool.on('error', (error) => logger.warn({ err: error }, 'idle PostgreSQL connection lost'));
  // And a listener for every client's whole life: pg-pool drops its own while a client is checked
  // out, and an `error` event with no listener ends the process. Under load, with backends
  // terminated (test/reliability/database-outage.test.ts), one once slipped past the per-checkout
  // listener below. Silent: the failing statement, or the pool's listener, reports the error.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });

  /**
   * A pooled client for one piece of work. A checked-out client has lost the pool's error
   * listener: a connection terminated meanwhile (pg_terminate_backend, a restart) would emit an
   * unhandled 'error' and end the process. The failing query reports it to the caller (503) and
   * the client is discarded, as it is when `work` calls `discard` because the connection can no
   * longer be trusted.
   */
  async function withClient<T>(work: (client: pg.PoolClient, discard: () => void) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken = false;
    const discard = () => {
      broken = true;
    };
    client.on('error', discard);
    try {
      return await work(client, discard);
    } finally {
      client.removeListener('error', discard);
      client.release(broken);
    }
  }

  /**
   * Every statement runs in a transaction whose first statement sets the data scope of the work
   * in progress (scope.ts) with set_config(..., true): transaction-local, so a pooled connection
   * never carries a previous request's scope into the next one. BEGIN and the settings travel in
   * one round trip (simple protocol; the values are validated UUIDs).
   */
  function inScopedTransaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    const begin = `BEGIN; ${setScopeSql(currentScope())}`;
    return withClient(async (client, discard) => {
      try {
        await client.query(begin);
        const result = await work(executorOf(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          discard(); // the connection itself failed: do not return it to the pool
        }
        throw error;
      }
    });
  }

  /**
   * A lone statement with parameters: its scope and itself in one round trip instead of three
   * (scoped-statement.ts). Statements without parameters keep the transaction above, since they
   * may hold several `;`-separated commands, which the extended protocol refuses.
   */
  function scopedStatement<Row>(sql: string, params: readonly unknown[]) {
    const scope = scopeStatement(currentScope());
    return withClient(async (client, discard) => {
      try {
        const result = await queryInScope<Row>(client, statementsOf, scope, sql, params);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } catch (error) {
        // The backend's own errors leave the connection idle (the implicit transaction ended at
        // the Sync); anything else (a lost connection, a client no longer queryable) discards it.
        if (!(error instanceof pg.DatabaseError)) discard();
        throw error;
      }
    });
  }

  /** Several statements with their scope, in one round trip on one connection (scoped-statement.ts). */
  function scopedStatements(statements: readonly Statement[]) {
    const scope = scopeStatement(currentScope());
    return withClient(async (client, discard) => {
      try {
        const results = await queryAllInScope(client, statementsOf, scope, statements);
        return results.map((result) => ({ rows: result.rows, rowCount: result.rowCount ?? 0 }));
      } catch (error) {
        if (!(error instanceof pg.DatabaseError)) discard();
        throw error;
      }
    });
  }

  /**
   * A `COPY ... TO STDOUT` read as a stream (pg-copy-streams), in a read-only transaction with the
   * caller's scope. The socket is read only as fast as the consumer takes chunks, so a slow HTTP
   * client slows PostgreSQL down rather than filling memory. A COPY that did not run to its end
   * (the consumer stopped, the statement failed) leaves the connection in a state not worth
   * repairing: it is closed, and the server ends the statement when it notices.
   */
  function copyOut(sql: string): AsyncGenerator<Buffer> {
    const begin = `BEGIN READ ONLY; ${setScopeSql(currentScope())}`;
    return (async function* () {
      const client = await pool.connect();
      const ignoreLostConnection = () => undefined; // the COPY stream or the next query reports it
      client.on('error', ignoreLostConnection);
      let complete = false;
      try {
        await client.query(begin);
        for await (const chunk of client.query(copyStreams.to(sql))) yield chunk as Buffer;
        await client.query('COMMIT');
        complete = true;
      } finally {
        client.removeListener('error', ignoreLostConnection);
        client.release(!complete);
      }
    })();
  }

  return {
    engine: 'postgres',
    copyOut,
    queryAll: (statements) =>
      statements.length === 1
        ? scopedStatement(statements[0]!.sql, statements[0]!.params).then((result) => [result])
        : scopedStatements(statements),
    query: (sql, params) =>
      params && params.length > 0
        ? scopedStatement(sql, params)
        : inScopedTransaction((tx) => tx.query(sql, params)),
    exec: (sql) => inScopedTransaction((tx) => tx.exec(sql)),
    transaction: inScopedTransaction,
    vacuum: (table) =>
      withClient(async (client) => {
        await client.query(`vacuum ${tableName(table)}`);
      }),
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      await pool.end();
    },
  };
}
