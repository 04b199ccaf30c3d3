/**
 * Writes go to the database in multi-row statements (`insert ... select * from unnest($1, $2,
 * ...)`), one per batch of rows, never one statement per object: a 10,000-object push is a
 * handful of round trips. The batch size bounds the size of one statement's parameters.
 */
export const WRITE_BATCH_SIZE = 1000;

export function* batches<T>(items: readonly T[], size: number = WRITE_BATCH_SIZE): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
