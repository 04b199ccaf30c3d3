import type { Migration } from '../migrator.js';

/**
 * The scan push's statistics catch-up (migration 0017, docs/performance.md "Fix 8") samples a
 * tenth of what it did, and analyzes the CVE rows once the push has written its own
 * (docs/performance.md, "Fix 17c").
 *
 * - **Statistics target 10** for its analyses: ANALYZE samples 3,000 rows per table instead of
 *   30,000. The catch-up exists for one number, the planner's estimate of the account's rows,
 *   which a first bulk load leaves at "one row" until an analyze and which a 3,000-row sample gets
 *   right to a few percent. The 30,000-row sample was most of the catch-up's cost, and the
 *   catch-up 8% of PostgreSQL's CPU over a medium scan phase: a CVE row is about 1.1 KB (the usage
 *   arrays of its images' workloads), so at 100,000 rows the sample read nearly every page of the
 *   table (380 ms of 650 for the six tables; 60 and 64 ms for the CVE rows and the findings with
 *   the smaller sample). The analyzed key columns keep up to 10 most common values and 10
 *   histogram buckets, not 100, until autovacuum's next analyze of the table replaces them; the
 *   other columns' statistics are not touched.
 * - **The CVE rows after they are written**: the catch-up runs before the push writes its CVE rows
 *   (the statements reading the findings need it), so it analyzed the CVE rows without the
 *   push's own. For an account's first push that left their estimate at one row, and the
 *   packages' counts then read the account's CVE rows through the report's index, not the
 *   package index, once per package: 1.4 s for one 500-row push, and most of an onboarding
 *   account's cost. vulnerability_statistics_catch_up now analyzes the five fact tables, and the
 *   push calls vulnerability_statistics_catch_up_cves after its CVE rows when it did.
 */
export const statisticsCatchUpSample: Migration = {
  id: '0036-statistics-catch-up-sample',
  sql: `
create or replace function vulnerability_statistics_catch_up(p_account uuid, p_findings bigint) returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  set default_statistics_target = 10
  as $fn$
declare
  plan json;
  estimate double precision;
begin
  execute format('explain (format json) select 1 from public.vulnerability_findings where account_id = %L', p_account)
    into plan;
  estimate := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision;
  if p_findings <= 2 * estimate + 500 then
    return false;
  end if;
  -- Only the columns the scan path's statements select rows by: the row counts and these are
  -- what its plans need, and sampling the wide text, array and jsonb columns is most of the cost.
  -- The CVE rows: vulnerability_statistics_catch_up_cves, once the push has written its own.
  analyze public.vulnerability_findings (account_id, cve_id, image_id, package_id),
    public.vulnerability_image_packages (account_id, image_id, package_id),
    public.vulnerability_packages (account_id, id),
    public.vulnerability_images (account_id, id),
    public.vulnerability_image_workloads (account_id, image_id, cluster_id);
  return true;
end
$fn$;

-- The CVE rows, analyzed by a push that caught up, once it has written its own. Security definer
-- for ANALYZE, as the catch-up; it reads and returns nothing.
create function vulnerability_statistics_catch_up_cves() returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  set default_statistics_target = 10
  as $fn$
begin
  analyze public.vulnerability_cves (account_id, id, package_id);
end
$fn$;
`,
};
