import type { Migration } from '../migrator.js';

/**
 * The identities report (#18) added up from one tally per cluster (docs/performance.md, "Fix 59").
 * Until now every push that changed an identity rebuilt the account's report from every live
 * identity of the account and every open risk, read into the server: at the large benchmark size
 * 230 ms a push for two clusters, and proportional to the number of clusters.
 *
 * - identity_report_tallies: per cluster, what its live identities and their open risks add to
 *   the report (src/engines/rbac/report.ts, IdentitiesTally): counts by level, identity type and
 *   risk type, the number of identities, of those with risks, of risks, and the sum of scores.
 * - identity_report_tally(account, cluster): that tally computed from the stored rows, with the
 *   same rules as tallyIdentities (a deleted identity and a resolved risk count for nothing; an
 *   identity counts once per risk type it has). The recompute calls it for its own cluster, then
 *   adds up the account's rows. It runs as the caller, under the policies.
 *
 * The backfill gives every cluster with stored identities its tally, so the first report written
 * after the upgrade still counts the clusters that have not been pushed since. Every statement
 * may run again (test/identities/report-tallies.test.ts does).
 */
export const identityReportTallies: Migration = {
  id: '0059-identity-report-tallies',
  sql: `
create table if not exists identity_report_tallies (
  account_id uuid not null,
  cluster_id uuid not null,
  tally jsonb not null,
  primary key (account_id, cluster_id)
);

create or replace function identity_report_tally(p_account uuid, p_cluster uuid) returns jsonb
  language sql stable
  set search_path = pg_catalog, public
  as $fn$
    with live as (
      select id, type, risk_level, risk_score from public.identities
       where account_id = p_account and cluster_id = p_cluster and deleted_at is null
    ),
    open_risks as (
      select r.identity_id, r.type as risk_type, l.type as identity_type
        from public.identity_risks r join live l on l.id = r.identity_id
       where r.account_id = p_account and r.cluster_id = p_cluster and r.deleted_at is null
    ),
    counts (key, n) as (
      select 'identities', count(*)::float8 from live
      union all select 'identities_with_risks', count(distinct identity_id) from open_risks
      union all select 'risks', count(*) from open_risks
      union all select 'score_sum', coalesce(sum(risk_score), 0) from live
    )
    select jsonb_object_agg(key, n)
           || jsonb_build_object(
                'per_level', (select coalesce(jsonb_object_agg(risk_level, n), '{}')
                                from (select risk_level, count(*) as n from live group by risk_level) x),
                'per_type', (select coalesce(jsonb_object_agg(type, n), '{}')
                               from (select type, count(*) as n from live group by type) x),
                'per_risk', (select coalesce(jsonb_object_agg(risk_type, n), '{}')
                               from (select risk_type, count(distinct identity_id) as n
                                       from open_risks group by risk_type) x),
                'risks_per_identity_type', (select coalesce(jsonb_object_agg(identity_type, n), '{}')
                                              from (select identity_type, count(*) as n
                                                      from open_risks group by identity_type) x),
                'risks_per_type', (select coalesce(jsonb_object_agg(risk_type, n), '{}')
                                     from (select risk_type, count(*) as n from open_risks group by risk_type) x))
      from counts
  $fn$;

insert into identity_report_tallies (account_id, cluster_id, tally)
select account_id, cluster_id, identity_report_tally(account_id, cluster_id)
  from (select distinct account_id, cluster_id from identities) as clusters
on conflict (account_id, cluster_id) do update set tally = excluded.tally;
`,
};
