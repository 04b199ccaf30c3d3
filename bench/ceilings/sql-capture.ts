/**
 * The SQL an endpoint runs, captured rather than retyped: the real app is built in this process
 * over a `Database` that forwards every statement to the benchmark's PostgreSQL database and
 * records it with its parameters, then the case's request is made twice with `app.inject` and the
 * second one's statements are kept: under load the server answers the same request over and over,
 * so what it runs is what a warm server runs (a page of identities or baselines whose bytes it
 * already keeps reads only their versions, row-bytes-cache.ts). The statements come back with
 * their parameters inlined as literals (pgbench scripts carry no parameters), in the order the
 * request issued them: session lookup, account check, count, page.
 */
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import type { Database, Executor } from '../../src/db/database.js';
import { inlineParams } from '../../src/db/inline-params.js';
import type { LoadCase } from '../cases.js';
import { BENCH_SECRET } from '../server-process.js';

export interface Statement {
  sql: string;
  params: readonly unknown[];
}

function recording(executor: Executor, log: Statement[]): Executor {
  return {
    query(sql, params) {
      log.push({ sql, params: params ?? [] });
      return executor.query(sql, params);
    },
    exec: (sql) => executor.exec(sql),
  };
}

/** `sql` with `$n` replaced by the literal of params[n-1]. */
export function inline(statement: Statement): string {
  return inlineParams(statement.sql, statement.params);
}

export interface SqlRecorder {
  capture(loadCase: LoadCase, authorization: string): Promise<Statement[]>;
  close(): Promise<void>;
}

export async function createSqlRecorder(db: Database, url: string): Promise<SqlRecorder> {
  let log: Statement[] = [];
  const recorded: Database = {
    engine: db.engine,
    query: (sql, params) => recording(db, log).query(sql, params),
    exec: (sql) => db.exec(sql),
    transaction: (work) => db.transaction((tx) => work(recording(tx, log))),
    vacuum: (table) => db.vacuum(table),
    ping: () => db.ping(),
    close: () => db.close(),
  };
  const app = await buildApp({
    config: testConfig({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: 0 }),
    db: recorded,
    pepper: BENCH_SECRET,
  });
  await app.ready();
  return {
    async capture(loadCase, authorization) {
      await request(loadCase, authorization);
      log = [];
      await request(loadCase, authorization);
      return log;
    },
    async close() {
      await app.close();
    },
  };

  async function request(loadCase: LoadCase, authorization: string) {
    const response = await app.inject({
      method: loadCase.method,
      url: loadCase.path,
      headers: {
        ...(loadCase.authenticated ? { authorization } : {}),
        ...(loadCase.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(loadCase.body ? { payload: loadCase.body } : {}),
    });
    if (response.statusCode !== 200)
      throw new Error(`${loadCase.name}: ${response.statusCode} ${response.body}`);
  }
}
