/**
 * Which of pageRange's readings (src/modules/list-totals/page-range.ts) a list's page statement
 * runs: from a bookmark, from the start or from the end. The bookmark tests record a page's
 * statements with `recordingExecutor`, then explain the page's statement as the database would
 * run it now.
 *
 * @example
 *   const { executor, statements } = recordingExecutor(t.db);
 *   await listContainerVersions(executor, accountId, query);
 *   assert.deepEqual(await readingsRun(t.db, statements[0]!), ['from_bookmark']);
 */
import type { Database, Executor, Statement } from '../../src/db/database.js';

/** An executor over `db` that keeps every statement it runs in `statements`, with its parameters. */
export function recordingExecutor(db: Database): { executor: Executor; statements: Statement[] } {
  const statements: Statement[] = [];
  const executor: Executor = {
    query: (sql, params) => {
      statements.push({ sql, params: params ?? [] });
      return db.query(sql, params);
    },
    queryAll: (all) => {
      statements.push(...all);
      return db.queryAll!(all);
    },
    exec: (sql) => db.exec(sql),
  };
  return { executor, statements };
}

/**
 * The readings that returned rows when `statement` ran, from its EXPLAIN ANALYZE: pageRange's three
 * branches are, in order, the Append's results gated by a one-time filter. A branch whose filter is
 * false returns no row (or is never reached, once the page is full).
 */
export async function readingsRun(db: Database, statement: Statement): Promise<string[]> {
  const { rows } = await db.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, costs off, timing off, summary off) ${statement.sql}`,
    [...statement.params],
  );
  const plan = rows.map((line) => line['QUERY PLAN']);
  const gated = plan.filter(
    (line, i) => /->\s+Result/.test(line) && /One-Time Filter/.test(plan[i + 1] ?? ''),
  );
  if (gated.length !== 3) throw new Error(`not a bookmarked page's plan:\n${plan.join('\n')}`);
  const readings = ['from_bookmark', 'from_start', 'from_end'];
  return readings.filter((_, i) => /actual rows=[1-9]/.test(gated[i]!));
}
