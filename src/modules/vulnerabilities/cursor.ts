/**
 * The rows of one query, read through a server-side cursor (DECLARE / FETCH, inside a
 * transaction, the same on PostgreSQL and PGlite), as an async generator of batches. A batch is
 * fetched only when the consumer asks for the next one, so memory holds one batch whatever the
 * row count and a slow reader (an HTTP client downloading a report) slows the fetching down.
 * When the consumer stops early (the client went away), the transaction is rolled back and the
 * cursor closed.
 *
 * On PGlite the open transaction holds the embedded engine for the whole read, as any query does
 * there: other requests wait until the report is streamed.
 *
 * @example
 *   for await (const batch of cursorBatches<Row>(db, 'select ... where account_id = $1', [id], 500)) write(batch);
 */
import type { Database } from '../../db/database.js';

class ConsumerLeft extends Error {}

export async function* cursorBatches<Row>(
  db: Database,
  sql: string,
  params: readonly unknown[],
  batchSize: number,
): AsyncGenerator<Row[]> {
  const ready: Row[][] = [];
  let requested = 0;
  let stopped = false;
  let finished = false;
  let failure: { error: unknown } | undefined;
  let wakeProducer: (() => void) | undefined;
  let wakeConsumer: (() => void) | undefined;
  const signal = (wake: (() => void) | undefined) => wake?.();

  const work = db
    .transaction(async (tx) => {
      // A cursor is planned for its first 10% of rows by default (cursor_tuple_fraction), which
      // can pick nested loops that take minutes over the whole set; every row is read here.
      await tx.query('set local cursor_tuple_fraction = 1');
      await tx.query(`declare report_cursor no scroll cursor for ${sql}`, params);
      for (;;) {
        while (requested === 0 && !stopped) await new Promise<void>((resolve) => (wakeProducer = resolve));
        if (stopped) throw new ConsumerLeft();
        requested--;
        const { rows } = await tx.query<Row>(`fetch forward ${batchSize} from report_cursor`);
        if (rows.length === 0) return;
        ready.push(rows);
        signal(wakeConsumer);
      }
    })
    .catch((error: unknown) => {
      if (!(error instanceof ConsumerLeft)) failure = { error };
    })
    .finally(() => {
      finished = true;
      signal(wakeConsumer);
    });

  try {
    for (;;) {
      if (ready.length === 0 && !finished) {
        requested++;
        signal(wakeProducer);
        while (ready.length === 0 && !finished)
          await new Promise<void>((resolve) => (wakeConsumer = resolve));
      }
      const batch = ready.shift();
      if (batch) {
        yield batch;
        continue;
      }
      if (failure) throw failure.error;
      return;
    }
  } finally {
    stopped = true;
    signal(wakeProducer);
    await work;
  }
}
