/**
 * Keeps the planner's picture of an account's identities close to their real size during its
 * first Kubernetes pushes (migration 0019, docs/performance.md "Fix 9"): without it the filter
 * values' refresh is planned as if the account had no identities until autovacuum's next analyze.
 */
import type { Executor } from '../../db/database.js';

/** Analyzes the identities tables, in the caller's transaction, when the planner lags far behind. */
export async function catchUpIdentityStatistics(db: Executor, accountId: string): Promise<boolean> {
  const { rows } = await db.query<{ analyzed: boolean }>(
    'select identity_statistics_catch_up($1) as analyzed',
    [accountId],
  );
  return rows[0]?.analyzed ?? false;
}
