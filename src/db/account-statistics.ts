/**
 * Keeps the planner's picture of an account's rows close to their real size during its first
 * pushes. Until autovacuum's next analyze, a new account's statements would be planned as if it
 * had no rows, and each lookup by key would read all of them. Each catch-up is a SQL function that
 * analyzes its tables, in the caller's transaction, only when the planner's estimate of the account
 * lags far behind its real size, and says whether it did.
 *
 * - `identities` (migration 0019, docs/performance.md "Fix 9"): before the identities' filter
 *   values are refreshed, whose probes of the facets and identities are planned from them.
 * - `findings` (migration 0058, "Fix 57"): before the findings evaluation's reads and updates by
 *   id, source and group, each of which read every live finding of the account.
 *
 * Call them under the account's scan lock, the findings' last: an analyze holds its tables' lock
 * to commit, and every transaction that analyzes must take those locks in one order (the
 * identities' or the scan tables' first, the findings' last) so that two cannot wait for each
 * other. The scan tables have their own catch-up (modules/vulnerabilities/statistics.ts), which
 * needs the account's stored findings count.
 */
import type { Executor } from './database.js';

const CATCH_UPS = {
  identities: 'identity_statistics_catch_up',
  findings: 'findings_statistics_catch_up',
} as const;

/** Analyzes `tables` of the account when the planner lags far behind; returns whether it did. */
export async function catchUpAccountStatistics(
  db: Executor,
  tables: keyof typeof CATCH_UPS,
  accountId: string,
): Promise<boolean> {
  const { rows } = await db.query<{ analyzed: boolean }>(`select ${CATCH_UPS[tables]}($1) as analyzed`, [
    accountId,
  ]);
  return rows[0]?.analyzed ?? false;
}
