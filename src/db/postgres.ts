import pg from 'pg';
import { type Database, type DatabaseLogger, type Executor, parseNumber, TYPE_OIDS } from './database.js';

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TYPE_OIDS.int8 || oid === TYPE_OIDS.numeric) return parseNumber;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function executorOf(client: pg.Pool | pg.PoolClient): Executor {
  return {
    async query(sql, params) {
      const result = await client.query(sql, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
    async exec(sql) {
      await client.query(sql);
    },
  };
}

export async function openPostgres(url: string, poolSize: number, logger: DatabaseLogger): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (server restart) must not crash the process: the pool
  // drops it and the next query opens a new one.
  pool.on('error', (error) => logger.warn({ err: error }, 'idle PostgreSQL connection lost'));
  const base = executorOf(pool);
  return {
    engine: 'postgres',
    ...base,
    async transaction(work) {
      const client = await pool.connect();
      // A checked-out client has lost the pool's error listener: a connection terminated during
      // the transaction (pg_terminate_backend, a restart) would emit an unhandled 'error' and end
      // the process. The failing query reports it to the caller (503); the client is discarded.
      let broken = false;
      const onConnectionError = () => {
        broken = true;
      };
      client.on('error', onConnectionError);
      try {
        await client.query('BEGIN');
        const result = await work(executorOf(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true; // the connection itself failed: do not return it to the pool
        }
        throw error;
      } finally {
        client.removeListener('error', onConnectionError);
        client.release(broken);
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      await pool.end();
    },
  };
}
