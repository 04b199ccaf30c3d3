/**
 * Keeps the planner's picture of an account's scan facts close to their real size during a bulk
 * load (migration 0017, docs/performance.md "Fix 8"): without it the statements that follow a
 * scan's inserts are planned as if the account had no rows until autovacuum's next analyze.
 */
import type { Executor } from '../../db/database.js';

/**
 * Analyzes the scan facts' tables, in the caller's transaction, when the planner estimates less than
 * half of the account's stored findings (their count is the sum of its images' counts, a
 * primary-key prefix of a small table). Returns whether it analyzed.
 */
export async function catchUpStatistics(tx: Executor, accountId: string): Promise<boolean> {
  const { rows } = await tx.query<{ analyzed: boolean }>(
    `select vulnerability_statistics_catch_up($1,
       (select coalesce(sum(vulnerabilities_count), 0) from vulnerability_images where account_id = $1)) as analyzed`,
    [accountId],
  );
  return rows[0]?.analyzed ?? false;
}

/**
 * Analyzes the CVE rows, in the caller's transaction: for a push whose catch-up analyzed, once it
 * has written its CVE rows. Analyzed with the other tables, before them, they would leave an
 * account's first push estimated at one CVE row, and the packages' counts that follow read every
 * CVE row of the account once per package (migration 0036).
 */
export async function catchUpCveStatistics(tx: Executor): Promise<void> {
  await tx.query('select vulnerability_statistics_catch_up_cves()');
}
