/**
 * Keeps the planner's picture of an account's findings close to their real size during its first
 * pushes (migration 0058, docs/performance.md "Fix 57"): without it the evaluation's reads and
 * updates by id, source and group are planned as if the account had no findings, and each reads
 * every live finding of the account.
 *
 * Call it only under the account's scan lock, after any other catch-up of the transaction: the
 * analyze holds its tables' lock to commit, and every transaction that analyzes must take these
 * locks in one order (the identities' or the scan tables' first, the findings' last) so that two
 * of them cannot wait for each other.
 */
import type { Executor } from '../../db/database.js';

/** Analyzes the findings tables, in the caller's transaction, when the planner lags far behind. */
export async function catchUpFindingsStatistics(db: Executor, accountId: string): Promise<boolean> {
  const { rows } = await db.query<{ analyzed: boolean }>(
    'select findings_statistics_catch_up($1) as analyzed',
    [accountId],
  );
  return rows[0]?.analyzed ?? false;
}
