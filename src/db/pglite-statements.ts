/**
 * Statements on PGlite through the wire protocol, read by node-postgres's own protocol parser and
 * converted by its own Result: parameters and rows are converted exactly as on PostgreSQL
 * (pg-conversion.ts).
 *
 * PGlite's `query` calls into PostgreSQL five times per statement (Parse, Describe, Bind, Describe,
 * Execute) and once more for the Sync, and its protocol parser copies every value of every row
 * into an ArrayBuffer of its own before decoding it. For a page of 100 inventory containers (19
 * columns) that reading took about a third of the statement's 4.9 ms, more than executing it
 * (docs/performance.md, "Fix 36"). Here the statements and their Sync go in as one message
 * (statement-pipeline.ts: outside transactions, parsed once per session, "Fix 37"), the answer
 * streams out in chunks, and pg-protocol reads each value straight from the chunk.
 *
 * Several statements before one Sync run in one implicit transaction, as a list page and its total
 * do on PostgreSQL (scoped-statement.ts). After an error PostgreSQL skips to the Sync, so the
 * first error is the caller's and the session is ready for the next statement.
 *
 * @example
 *   const [page, total] = await runStatements(pglite, session, [pageStatement, totalStatement], {
 *     inTransaction: false,
 *   });
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type {
  BackendMessage,
  CommandCompleteMessage,
  DataRowMessage,
  RowDescriptionMessage,
} from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import type { QueryResult, Statement } from './database.js';
import { ROW_TYPES } from './pg-conversion.js';
import type { PreparedStatements } from './prepared-statements.js';
import { statementPipeline } from './statement-pipeline.js';

export async function runStatements(
  pglite: PGlite,
  session: PreparedStatements,
  statements: readonly Statement[],
  { inTransaction }: { inTransaction: boolean },
): Promise<QueryResult<Record<string, unknown>>[]> {
  const { message, parsed } = statementPipeline(session, statements);
  const reader = new ResultReader();
  try {
    // PGlite's own statements take this lock too; the raw protocol does not take it by itself.
    await pglite.runExclusive(() =>
      pglite.execProtocolRawStream(message, {
        // Not synced inside a transaction: PGlite syncs when the transaction ends, as its query does.
        syncToFs: !inTransaction,
        // A view into PGlite's memory, reused by the next write: copied before the parser keeps any.
        onRawData: (chunk) => reader.read(Buffer.from(chunk)),
      }),
    );
    return reader.results();
  } catch (error) {
    session.forget(parsed);
    throw error;
  }
}

/** pg's Result with the methods its Query calls (untyped in @types/pg). */
interface ResultInternals extends pg.Result {
  addFields(fields: RowDescriptionMessage['fields']): void;
  parseRow(values: DataRowMessage['fields']): Record<string, unknown>;
  addRow(row: Record<string, unknown>): void;
  addCommandComplete(message: CommandCompleteMessage): void;
}

const newResult = () => new pg.Result(undefined as never, ROW_TYPES as never) as ResultInternals;

/** Collects one result per statement from the backend's messages, as pg's Query does. */
class ResultReader {
  private readonly parser = new Parser();
  private readonly done: ResultInternals[] = [];
  private current = newResult();
  private failure: Error | undefined;

  read(chunk: Buffer): void {
    this.parser.parse(chunk, (message) => this.take(message));
  }

  results(): QueryResult<Record<string, unknown>>[] {
    if (this.failure) throw this.failure;
    return this.done.map((result) => ({ rows: result.rows, rowCount: result.rowCount ?? 0 }));
  }

  private take(message: BackendMessage): void {
    switch (message.name) {
      case 'rowDescription':
        this.current.addFields((message as RowDescriptionMessage).fields);
        break;
      case 'dataRow':
        this.current.addRow(this.current.parseRow((message as DataRowMessage).fields));
        break;
      case 'commandComplete':
        this.current.addCommandComplete(message as CommandCompleteMessage);
        this.done.push(this.current);
        this.current = newResult();
        break;
      case 'error':
        // pg-protocol's DatabaseError: code, detail, constraint, ... as pg reports them.
        this.failure ??= message as unknown as Error;
        break;
    }
  }
}
