/**
 * Statements that run together before one Sync, as the one protocol message both engines send:
 * PostgreSQL through pg's connection (scoped-statement.ts), PGlite through its raw protocol
 * (pglite-statements.ts).
 *
 * Each statement is bound as pg binds (unnamed portal, text format, pg's own value conversion),
 * described and executed, under the name its session keeps it prepared as (prepared-statements.ts),
 * and parsed first only when the session does not have it yet. Statements the session closes go
 * first; an optional `scope` (the statement setting transaction-local values, scope.ts) goes next,
 * prepared like the others but not described: its row is not the caller's.
 *
 * Up to the Sync the statements share one implicit transaction (or the open one); after an error
 * PostgreSQL skips every message up to the Sync, so the statements parsed in a failed pipeline
 * may or may not exist: the caller hands `parsed` to the session's `forget`.
 */
import { serialize } from 'pg-protocol';
import type { Statement } from './database.js';
import { prepareValue } from './pg-conversion.js';
import type { PreparedStatements } from './prepared-statements.js';

export interface Pipeline {
  message: Buffer;
  /** the names parsed in this pipeline */
  parsed: string[];
}

export function statementPipeline(
  session: PreparedStatements,
  statements: readonly Statement[],
  scope?: Statement,
): Pipeline {
  const closing = session.takeClosing();
  const parts: Buffer[] = closing.map((name) => serialize.close({ type: 'S', name }));
  const parsed: string[] = [];
  // Bound to the unnamed portal, after its Parse where the session does not hold it yet.
  const bind = (statement: Statement) => {
    const { name, parse } = session.use(statement.sql);
    if (parse) {
      parts.push(serialize.parse({ text: statement.sql, name }));
      if (name !== '') parsed.push(name);
    }
    parts.push(serialize.bind({ statement: name, values: [...statement.params], valueMapper: prepareValue }));
  };
  try {
    if (scope !== undefined) {
      bind(scope);
      parts.push(serialize.execute({}));
    }
    for (const statement of statements) {
      bind(statement);
      parts.push(serialize.describe({ type: 'P', name: '' }), serialize.execute({}));
    }
  } catch (error) {
    // A value pg cannot convert: nothing is sent, so the closing waits for the next pipeline and
    // nothing parsed here exists on the server.
    session.forget([...closing, ...parsed]);
    throw error;
  }
  parts.push(serialize.sync());
  return { message: Buffer.concat(parts), parsed };
}
