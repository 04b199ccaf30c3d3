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
 */
import pg from 'pg';

/** What pg's Query does with the backend's messages: untyped internals of pg 8. */
interface QueryInternals {
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: pg.Connection): void;
  submit(connection: pg.Connection): Error | null;
}

/** The protocol messages pg's Connection writes (typed in @types/pg with an extra `more` flag). */
interface ConnectionWrites {
  parse(query: { text: string }): void;
  bind(config: object): void;
  execute(config: object): void;
  stream: { cork?: () => void; uncork?: () => void };
}

class ScopedQuery extends pg.Query {
  /** false until the settings' statement has completed: its row is not the caller's */
  private scopeDone = false;

  constructor(
    private readonly scopeSql: string,
    text: string,
    values: readonly unknown[],
    callback: (error: Error | undefined, result: pg.QueryResult) => void,
  ) {
    // 'extended': the statement goes through Parse/Bind/Execute even without parameters, so its
    // Sync is the one that ends the implicit transaction.
    super({ text, values: [...values], queryMode: 'extended' } as pg.QueryConfig, callback as never);
    const own = this as unknown as QueryInternals;
    const query = pg.Query.prototype as unknown as QueryInternals;
    own.submit = (connection) => {
      const writes = connection as unknown as ConnectionWrites;
      // Corked: the settings' messages and the statement's (which pg corks itself) leave in one write.
      writes.stream.cork?.();
      try {
        writes.parse({ text: this.scopeSql });
        writes.bind({});
        writes.execute({});
        return query.submit.call(this, connection);
      } finally {
        writes.stream.uncork?.();
      }
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
      new ScopedQuery(scopeSql, sql, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  });
}
