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
 * The message is statement-pipeline.ts's; pg's own Query reads the answer. The settings' statement
 * answers one row and a command completion before the statement's own messages arrive; both are
 * skipped here.
 *
 * Several independent statements (a list page and its total) can share that round trip: each is
 * bound, described and executed before the one Sync, in the same implicit transaction and
 * snapshot, and pg's Query collects one result per statement, in order, as it does for a
 * multi-statement simple query (docs/performance.md, "Fix 16d"). Each is parsed once per
 * connection, which keeps it prepared (prepared-statements.ts, "Fix 37").
 *
 * Inside an open transaction the same message carries a transaction's statements with no scope
 * (the transaction set it): they run in order, and the Sync ends no transaction block, so they
 * stay the caller's to commit. The caller does not wait a round trip per statement, and can work
 * while they run (docs/performance.md, "Fix 69").
 */
import pg from 'pg';
import type { Statement } from './database.js';
import { PreparedStatements } from './prepared-statements.js';
import { type Pipeline, statementPipeline } from './statement-pipeline.js';

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

/** The statements a pooled connection keeps prepared (prepared-statements.ts), by connection. */
export type ConnectionStatements = (connection: object) => PreparedStatements;

/**
 * Each connection's prepared statements, up to `capacity` each; a connection discarded takes its
 * own with it. The lists' statements, with and without their filters and sorts, are a few dozen.
 */
export function connectionStatements(capacity: number): ConnectionStatements {
  const sessions = new WeakMap<object, PreparedStatements>();
  return (connection) => {
    let session = sessions.get(connection);
    if (!session) {
      session = new PreparedStatements(capacity);
      sessions.set(connection, session);
    }
    return session;
  };
}

/** How a pipeline reaches a connection, and what a failed one leaves to clean up. */
interface PipelineSource {
  /** the message for this connection; may throw before anything is written */
  build(connection: pg.Connection): Pipeline;
  /** the pipeline failed: the statements it parsed may or may not exist on the connection */
  failed(connection: pg.Connection, parsed: string[]): void;
}

class PipelineQuery extends pg.Query {
  /** false until the settings' statement has completed: its row is not the caller's */
  private scopeDone: boolean;

  /**
   * The pipeline's statements (the last one's text names the query), after a scope statement
   * whose answer is skipped when `scoped`. The callback gets one result, or an array of them for
   * several statements.
   */
  constructor(
    lastSql: string,
    scoped: boolean,
    source: PipelineSource,
    callback: (error: Error | undefined, result: pg.QueryResult | pg.QueryResult[]) => void,
  ) {
    // pg's Query only reads the answer here (submit is ours).
    super({ text: lastSql } as pg.QueryConfig, callback as never);
    this.scopeDone = !scoped;
    const own = this as unknown as QueryInternals;
    const query = pg.Query.prototype as unknown as QueryInternals;
    let parsed: string[] = [];
    own.submit = (connection) => {
      const pipeline = source.build(connection);
      parsed = pipeline.parsed;
      (connection as unknown as ConnectionSocket).stream.write(pipeline.message);
      return null;
    };
    own.handleError = (error, connection) => {
      source.failed(connection, parsed);
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

/** `statements` after `scope`, each parsed once per connection (its session of prepared statements). */
function scopedQuery(
  sessionOf: ConnectionStatements,
  scope: Statement,
  statements: readonly Statement[],
  callback: (error: Error | undefined, result: pg.QueryResult | pg.QueryResult[]) => void,
): PipelineQuery {
  return new PipelineQuery(
    statements[statements.length - 1]!.sql,
    true,
    {
      // A value it cannot convert throws here, before anything is written: pg submits a fresh
      // client's query at once, so the error goes to the caller, which discards the connection
      // (not a DatabaseError).
      build: (connection) => statementPipeline(sessionOf(connection), statements, scope),
      failed: (connection, parsed) => sessionOf(connection).forget(parsed),
    },
    callback,
  );
}

/**
 * Runs `sql` on `client` after `scope` (the statement setting transaction-local values, scope.ts),
 * both in one implicit transaction and one round trip.
 */
export function queryInScope<Row>(
  client: pg.PoolClient,
  sessionOf: ConnectionStatements,
  scope: Statement,
  sql: string,
  params: readonly unknown[],
): Promise<pg.QueryResult<Row & pg.QueryResultRow>> {
  return new Promise((resolve, reject) => {
    client.query(
      scopedQuery(sessionOf, scope, [{ sql, params }], (error, result) =>
        error ? reject(error) : resolve(result as pg.QueryResult<Row & pg.QueryResultRow>),
      ),
    );
  });
}

/**
 * Runs each of `statements` (statements that return rows) on `client` after `scope`, all in
 * one implicit transaction and one round trip; one result per statement, in their order.
 */
export function queryAllInScope(
  client: pg.PoolClient,
  sessionOf: ConnectionStatements,
  scope: Statement,
  statements: readonly Statement[],
): Promise<pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    client.query(
      scopedQuery(sessionOf, scope, statements, (error, result) => {
        if (error) reject(error);
        else resolve(Array.isArray(result) ? result : [result]);
      }),
    );
  });
}

/** Statements inside transactions go unnamed, as pg's own query sends them (postgres.ts). */
const UNNAMED = new PreparedStatements(0);

/**
 * Runs `statements` on `client` inside the transaction open on it, in order, in one round trip;
 * one result per statement. After an error PostgreSQL skips the rest and the transaction is
 * aborted, as the first failing statement alone would leave it.
 *
 * The message is built here, before pg queues the query: pg submits a queued query from its
 * socket's callback, where a value that cannot be converted would throw past the caller.
 */
export function queryAllInTransaction(
  client: pg.PoolClient,
  statements: readonly Statement[],
): Promise<pg.QueryResult[]> {
  if (statements.length === 0) return Promise.resolve([]);
  const pipeline = statementPipeline(UNNAMED, statements);
  return new Promise((resolve, reject) => {
    client.query(
      new PipelineQuery(
        statements[statements.length - 1]!.sql,
        false,
        { build: () => pipeline, failed: () => undefined },
        (error, result) => {
          if (error) reject(error);
          else resolve(Array.isArray(result) ? result : [result]);
        },
      ),
    );
  });
}
