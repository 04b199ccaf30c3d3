/**
 * The rows of one query, read through a server-side cursor (DECLARE / FETCH, inside a
 * transaction, the same on PostgreSQL and PGlite), as an async generator of batches. The next
 * batch is fetched while the consumer works on the current one (at most LOOK_AHEAD batches wait),
 * so the database and the serialization overlap, and memory holds a few batches whatever the row
 * count: a slow reader (an HTTP client downloading a report) slows the fetching down.
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

/** Batches fetched ahead of the consumer. */
const LOOK_AHEAD = 2;

export async function* cursorBatches<Row>(
  db: Database,
  sql: string,
  params: readonly unknown[],
  batchSize: number,
): AsyncGenerator<Row[]> {
  const ready: Row[][] = [];
  let stopped = false;
  let finished = false;
  let failure: { error: unknown } | undefined;
  let wakeProducer: (() => void) | undefined;
  let wakeConsumer: (() => void) | undefined;
  const signal = (wake: (() => void) | undefined) => wake?.();

  const work = db
    .transaction(async (tx) => {
      // The query is meant to stream from an index in its order (the report's default sort):
      // planned for a quick first row (cursor_tuple_fraction's default, 0.1, stated so a server
      // setting does not change it), and without JIT, whose compilation is sized for the whole
      // estimated cost and delays the first row by hundreds of milliseconds.
      await tx.query('set local cursor_tuple_fraction = 0.1');
      await tx.query('set local jit = off');
      await tx.query(`declare report_cursor no scroll cursor for ${sql}`, params);
      for (;;) {
        while (ready.length >= LOOK_AHEAD && !stopped)
          await new Promise<void>((resolve) => (wakeProducer = resolve));
        if (stopped) throw new ConsumerLeft();
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
      while (ready.length === 0 && !finished) await new Promise<void>((resolve) => (wakeConsumer = resolve));
      const batch = ready.shift();
      if (batch) {
        signal(wakeProducer);
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
