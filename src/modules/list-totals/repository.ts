/**
 * The totals of the unfiltered lists, kept per account by the tables' triggers (migration 0022,
 * docs/performance.md "Fix 12"). A list with no filter (`Where.filtered` is false) reads its
 * total here instead of counting the account's rows; a filtered list still counts the range of
 * its filter.
 *
 * @example
 *   const total = await (!where.filtered
 *     ? keptTotal(db, accountId, 'inventory_containers')
 *     : countRows(db, 'select count(*) as total from inventory_containers c where ...', params));
 */
import type { Executor } from '../../db/database.js';

/** The lists kept; `cluster_resources_live` counts the latest, undeleted versions. */
export type KeptList =
  | 'inventory_containers'
  | 'cluster_resources_live'
  | 'vulnerability_packages'
  | 'identities';

/** No row yet means nothing was ever written to the list for this account: 0. */
export async function keptTotal(db: Executor, accountId: string, list: KeptList): Promise<number> {
  const { rows } = await db.query<{ total: number }>(
    'select total from list_totals where account_id = $1 and list = $2',
    [accountId, list],
  );
  return Number(rows[0]?.total ?? 0);
}

/** A `select count(*) as total ...` statement's answer. */
export async function countRows(db: Executor, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ total: number }>(sql, params);
  return Number(rows[0]?.total ?? 0);
}
