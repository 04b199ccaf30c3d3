import type { Migration } from '../migrator.js';

/**
 * Planner statistics that keep up with an account's first Kubernetes pushes: Fix 8 (migration
 * 0017) for the identities tables (docs/performance.md, "Fix 9"). Until autovacuum's analyze, the
 * statistics say a new account has no identities, and the refresh of its filter values was
 * planned as a nested loop over every facet of the account times every identity of the cluster:
 * at the benchmark's medium size its executions grew from 161 ms to 33.7 s, 64 s of a 154 s phase.
 *
 * identity_statistics_catch_up(account) compares the planner's estimate of the account's
 * identities with the number stored (counted no further than the threshold, so a call costs at
 * most the estimate's size), and when the estimate is less than half of it (and more than 500
 * identities behind), analyzes the key columns of the identities tables there and then, in the
 * caller's transaction (its own rows are sampled as live), so the push's next statements and the
 * following pushes are planned from the account's real size. ANALYZE needs the tables' owner,
 * hence SECURITY DEFINER; the function returns no row of any account, only whether it analyzed,
 * so it checks no scope.
 */
export const identityStatistics: Migration = {
  id: '0019-identity-statistics',
  sql: `
create function identity_statistics_catch_up(p_account uuid) returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  as $fn$
declare
  plan json;
  threshold bigint;
  stored bigint;
begin
  execute format('explain (format json) select 1 from public.identities where account_id = %L', p_account)
    into plan;
  threshold := ceil(2 * (plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision + 500)::bigint;
  select count(*) into stored
    from (select 1 from public.identities where account_id = p_account limit threshold + 1) as counted;
  if stored <= threshold then
    return false;
  end if;
  -- Only the columns the recompute's statements select and join rows by: sampling the wide text
  -- and jsonb columns is most of an analyze's cost.
  analyze public.identities (account_id, cluster_id, id),
    public.identity_facets (account_id, identity_id, facet, value),
    public.identity_risks (account_id, identity_id, cluster_id),
    public.identity_source_links (account_id, cluster_id, uid, link, key);
  return true;
end
$fn$;
`,
};
