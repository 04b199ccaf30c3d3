/**
 * One statement and its data scope in a single round trip to PostgreSQL.
 *
 * The row-level security policies read transaction-local settings (scope.ts), so a lone statement
 * used to travel as three round trips: `BEGIN` plus the settings, the statement, `COMMIT`. Each
 * round trip is a socket write that wakes the backend, and on a machine shared with PostgreSQL
 * those writes were a third to a half of the server's CPU per list request (docs/performance.md,
 * "Fix 13"). The extended query protocol runs everything up to a Sync message in one implicit
 * transaction, so this sends the settings' statement and then the statement itself before a
 * single Sync, in one write: `set_config(..., true)` lasts exactly as long as the statement, and
 * the implicit transaction commits (or rolls back on an error) at the Sync, as COMMIT did.
 *
 * The settings' statement answers one row and a command completion before the statement's own
 * messages arrive; both are skipped here, everything else is pg's own Query.
 *
 * Several independent statements (a list page and its total) can share that round trip: each is
 * parsed, bound, described and executed before the one Sync, in the same implicit transaction
 * and snapshot, and pg's Query collects one result per statement, in order, as it does for a
 * multi-statement simple query (docs/performance.md, "Fix 16d").
 */
import pg from 'pg';
import type { Statement } from './database.js';
import { PreparedStatements } from './prepared-statements.js';
import { statementPipeline } from './statement-pipeline.js';

/** What pg's Query does with the backend's messages: untyped internals of pg 8. */
interface QueryInternals {
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: pg.Connection): void;
  handleError(error: Error, connection: pg.Connection): void;
  submit(connection: pg.Connection): Error | null;
}

/** pg's Connection: its socket (typed in @types/pg without it). */
interface ConnectionSocket {
  stream: { write(message: Buffer): boolean };
}

/**
 * How many statements each pooled connection keeps prepared. The lists' statements, with and
 * without their filters and sorts, are a few dozen; the rest run rarely and are the ones evicted.
 */
const PREPARED_PER_CONNECTION = 100;

/** The statements each connection has prepared; a connection discarded takes its own with it. */
const sessions = new WeakMap<object, PreparedStatements>();

function sessionOf(connection: object): PreparedStatements {
  let session = sessions.get(connection);
  if (!session) {
    session = new PreparedStatements(PREPARED_PER_CONNECTION);
    sessions.set(connection, session);
  }
  return session;
}

class ScopedQuery extends pg.Query {
  /** false until the settings' statement has completed: its row is not the caller's */
  private scopeDone = false;

  /**
   * `statements` run in order before one Sync. The callback gets one result, or an array of them
   * for several statements.
   */
  constructor(
    scopeSql: string,
    statements: readonly Statement[],
    callback: (error: Error | undefined, result: pg.QueryResult | pg.QueryResult[]) => void,
  ) {
    const last = statements[statements.length - 1]!;
    super({ text: last.sql, values: [...last.params] } as pg.QueryConfig, callback as never);
    const own = this as unknown as QueryInternals;
    const query = pg.Query.prototype as unknown as QueryInternals;
    let parsed: string[] = [];
    own.submit = (connection) => {
      const session = sessionOf(connection);
      // A value it cannot convert throws here, before anything is written: the error goes to the
      // caller, which discards the connection (not a DatabaseError).
      const pipeline = statementPipeline(session, statements, scopeSql);
      parsed = pipeline.parsed;
      (connection as unknown as ConnectionSocket).stream.write(pipeline.message);
      return null;
    };
    own.handleError = (error, connection) => {
      sessionOf(connection).forget(parsed);
      query.handleError.call(this, error, connection);
    };
    own.handleDataRow = (msg) => {
      if (this.scopeDone) query.handleDataRow.call(this, msg);
    };
    own.handleCommandComplete = (msg, connection) => {
      if (this.scopeDone) query.handleCommandComplete.call(this, msg, connection);
      else this.scopeDone = true;
    };
  }
}

/**
 * Runs `sql` on `client` after `scopeSql` (a parameterless statement setting transaction-local
 * values), both in one implicit transaction and one round trip.
 */
export function queryInScope<Row>(
  client: pg.PoolClient,
  scopeSql: string,
  sql: string,
  params: readonly unknown[],
): Promise<pg.QueryResult<Row & pg.QueryResultRow>> {
  return new Promise((resolve, reject) => {
    client.query(
      new ScopedQuery(scopeSql, [{ sql, params }], (error, result) =>
        error ? reject(error) : resolve(result as pg.QueryResult<Row & pg.QueryResultRow>),
      ),
    );
  });
}

/**
 * Runs each of `statements` (statements that return rows) on `client` after `scopeSql`, all in
 * one implicit transaction and one round trip; one result per statement, in their order.
 */
export function queryAllInScope(
  client: pg.PoolClient,
  scopeSql: string,
  statements: readonly Statement[],
): Promise<pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    client.query(
      new ScopedQuery(scopeSql, statements, (error, result) => {
        if (error) reject(error);
        else resolve(Array.isArray(result) ? result : [result]);
      }),
    );
  });
}
