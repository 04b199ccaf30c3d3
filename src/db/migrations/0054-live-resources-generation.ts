import type { Migration } from '../migrator.js';

/**
 * A generation for each cluster's live resources, beside their kept total (0050): the number of
 * statements that have changed which versions are live, or written a live one. The resources list
 * keeps bookmarks into its pages (modules/list-totals/page-bookmarks.ts, docs/performance.md "Fix
 * 53"), and a bookmark holds only while its list is exactly as it was: the page statement reads
 * the account's generations in its own snapshot and seeks from the bookmark only if they are
 * unchanged.
 *
 * The live resources' three triggers already run once per statement over the rows it wrote; each
 * now also adds one to the generation of every cluster whose rows it touched. The UPDATE trigger
 * used to skip a cluster whose rows came in and left in equal numbers (its total unchanged); it now
 * upserts every cluster it saw a live row of, before or after, so a statement restoring one version
 * and deleting another still moves the generation, and so would an update of a live version's
 * sort columns (none is written today: a new version is a new row). The other lists' rows keep
 * generation 0: their updates are not counted, so they have no bookmarks.
 */
export const liveResourcesGeneration: Migration = {
  id: '0054-live-resources-generation',
  sql: `
alter table cluster_list_totals add column generation bigint not null default 0;

create or replace function list_totals_live_resources_inserted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total, generation)
  select account_id, 'cluster_resources_live', cluster_id, count(*), 1 from new_rows
   where is_latest and deleted_at is null
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id)
    do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;
create or replace function list_totals_live_resources_updated() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total, generation)
  select account_id, 'cluster_resources_live', cluster_id, sum(delta), 1 from (
    select account_id, cluster_id, 1 as delta from new_rows where is_latest and deleted_at is null
    union all
    select account_id, cluster_id, -1 from old_rows where is_latest and deleted_at is null
  ) d
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id)
    do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;
create or replace function list_totals_live_resources_deleted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total, generation)
  select account_id, 'cluster_resources_live', cluster_id, -count(*), 1 from old_rows
   where is_latest and deleted_at is null
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id)
    do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;
`,
};
