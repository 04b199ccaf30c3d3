/**
 * What concurrent pushes are waiting for, read from pg_locks (which every role sees whole), for
 * the tests that hold a lock and watch pushes queue behind it. PostgreSQL only.
 *
 * @example
 *   await waitFor(() => pushesWaitingForAdvisoryLock(tx, 'vulnerability_findings'), 2);
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Executor } from '../../src/db/database.js';

/**
 * Backends of this database waiting for an advisory lock (the account's scan lock, an image's
 * lock) that have already written to `table`, or, with no table, every such waiting backend.
 */
export async function pushesWaitingForAdvisoryLock(db: Executor, table?: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(distinct waiting.pid)::int as n
       from pg_locks waiting
      where waiting.locktype = 'advisory' and not waiting.granted
        and waiting.database = (select oid from pg_database where datname = current_database())
        and ($1::text is null or exists (
              select 1 from pg_locks written
               where written.pid = waiting.pid and written.granted and written.relation = $1::regclass))`,
    [table ?? null],
  );
  return rows[0]?.n ?? 0;
}

/** Polls `count` until it reaches `expected` (20 s at most); returns the last count. */
export async function waitFor(count: () => Promise<number>, expected: number): Promise<number> {
  let seen = await count();
  for (let tries = 0; tries < 400 && seen < expected; tries++) {
    await sleep(50);
    seen = await count();
  }
  return seen;
}
