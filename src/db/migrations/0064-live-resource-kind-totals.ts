import type { Migration } from '../migrator.js';

/**
 * The live resources' totals kept per cluster and kind, beside their per-cluster totals (0050,
 * 0054), so that the resources list filtered by kind (`resource_types=Pod`), with or without
 * clusters, reads its `total_count` instead of counting the kind's rows (docs/performance.md,
 * "Fix 76"): 100 ms for the 128,136 live pods of the large benchmark account.
 *
 * The live resources' three row triggers already run once per statement over the versions it
 * wrote. Each now groups them by cluster and kind once, upserts the kinds' rows (those whose count
 * moved), and adds the kinds up per cluster for cluster_list_totals, exactly as before: a cluster
 * seen gets its generation moved even where its total is unchanged (0054). A version's kind is
 * never rewritten, but the UPDATE trigger counts kinds from the old and new rows alike, so it
 * would stay right if one were. A row per (account, cluster, kind) is written only by statements
 * over that cluster's rows, which Posture writes only under the cluster's lock (0050's argument):
 * no push waits here that did not already wait. TRUNCATE forgets the kinds with the totals.
 *
 * The functions run as the caller: under row-level security the rows a statement wrote passed the
 * account policy, and so do their kinds' rows (the migrator's policy covers account_id). Existing
 * live versions are counted here.
 */

/** The live resources' trigger function for one statement kind, from its per-kind deltas. */
const keptByKind = (name: string, deltas: string) => `
create or replace function ${name}() returns trigger language plpgsql as $fn$
begin
  with kinds as (
    select account_id, cluster_id, kind, sum(delta) as delta from (${deltas}) d
     group by account_id, cluster_id, kind
  ), kind_totals as (
    insert into live_resource_kind_totals as t (account_id, cluster_id, kind, total)
    select account_id, cluster_id, kind, delta from kinds where delta <> 0
     order by account_id, cluster_id, kind
    on conflict (account_id, cluster_id, kind) do update set total = t.total + excluded.total
  )
  insert into cluster_list_totals as t (account_id, list, cluster_id, total, generation)
  select account_id, 'cluster_resources_live', cluster_id, sum(delta), 1 from kinds
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id)
    do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;`;

const LIVE = 'is_latest and deleted_at is null';

/** The kinds' totals of the live versions stored before the migration (exported for its test). */
export const KIND_TOTALS_OF_STORED_VERSIONS = `insert into live_resource_kind_totals (account_id, cluster_id, kind, total)
select account_id, cluster_id, kind, count(*) from cluster_resources where ${LIVE}
 group by account_id, cluster_id, kind`;

export const liveResourceKindTotals: Migration = {
  id: '0064-live-resource-kind-totals',
  sql: `
create table live_resource_kind_totals (
  account_id uuid not null,
  cluster_id uuid not null,
  kind text collate "C" not null,
  total bigint not null,
  primary key (account_id, cluster_id, kind)
);
${keptByKind('list_totals_live_resources_inserted', `select account_id, cluster_id, kind, 1 as delta from new_rows where ${LIVE}`)}
${keptByKind(
  'list_totals_live_resources_updated',
  `select account_id, cluster_id, kind, 1 as delta from new_rows where ${LIVE}
    union all
    select account_id, cluster_id, kind, -1 from old_rows where ${LIVE}`,
)}
${keptByKind('list_totals_live_resources_deleted', `select account_id, cluster_id, kind, -1 as delta from old_rows where ${LIVE}`)}

create function live_resource_kind_totals_truncated() returns trigger language plpgsql as $fn$
begin
  delete from live_resource_kind_totals;
  return null;
end
$fn$;
create trigger list_totals_kinds_truncated after truncate on cluster_resources
  for each statement execute function live_resource_kind_totals_truncated();

${KIND_TOTALS_OF_STORED_VERSIONS};
`,
};
