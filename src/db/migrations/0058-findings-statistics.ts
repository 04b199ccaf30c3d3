import type { Migration } from '../migrator.js';

/**
 * Planner statistics that keep up with an account's first findings: Fix 8's and Fix 9's remedy
 * (migrations 0017 and 0019) for the findings tables (docs/performance.md, "Fix 57"). Until an
 * analyze, the statistics say a new account has no findings, and the evaluation's statements
 * by id, by source and by group were planned as reads of every live finding of the account: at
 * the large size 40,000 rows a statement, and the close of emptied groups 220 ms a call (a
 * nested loop over those rows once per group). On a server with many accounts autovacuum may
 * never catch up for a new one: its threshold is a tenth of the whole table.
 *
 * findings_statistics_catch_up(account) compares the planner's estimate of the account's
 * findings with the number stored, counted no further than twice the estimate plus 500, and when
 * the count passes that threshold analyzes the columns the evaluation reads findings and groups
 * by, in the caller's transaction (its own rows are sampled as live), with statistics target 10
 * (a 3,000-row sample, as 0036's). Once the estimate reaches 10,000 rows it returns without
 * counting: the planner then prefers the selective indexes whatever the account's real size, and
 * the count would cost a push a read of that many index entries. SECURITY DEFINER for ANALYZE;
 * it returns only whether it analyzed, so it checks no scope.
 *
 * ANALYZE holds its lock on the two tables until the caller commits, and two analyses of a table
 * wait for each other, so it is called only under the account's scan lock, after the identities'
 * and the scan tables' catch-ups: every transaction that analyzes takes those locks in the same
 * order (src/db/account-statistics.ts).
 */
export const findingsStatistics: Migration = {
  id: '0058-findings-statistics',
  sql: `
create function findings_statistics_catch_up(p_account uuid) returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  set default_statistics_target = 10
  as $fn$
declare
  plan json;
  estimate double precision;
  threshold bigint;
  stored bigint;
begin
  execute format('explain (format json) select 1 from public.findings where account_id = %L', p_account)
    into plan;
  estimate := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision;
  if estimate >= 10000 then
    return false;
  end if;
  threshold := ceil(2 * estimate + 500)::bigint;
  select count(*) into stored
    from (select 1 from public.findings where account_id = p_account limit threshold + 1) as counted;
  if stored <= threshold then
    return false;
  end if;
  analyze public.findings (account_id, id, group_id, cluster_id, family, source_key, deleted_at),
    public.finding_groups (account_id, id, cluster_id, group_key, status);
  return true;
end
$fn$;
`,
};
