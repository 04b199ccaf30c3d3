import type { Migration } from '../migrator.js';

/**
 * A generation for each cluster's inventory containers, beside their kept total (0050), as 0054
 * keeps one for the live resources: the number of statements that have inserted, deleted or
 * updated the cluster's containers. The containers list bookmarks its pages
 * (modules/list-totals/page-bookmarks.ts, docs/performance.md "Fix 53") and seeks from a bookmark
 * only while the generation it reads in its own snapshot is the bookmark's.
 *
 * The INSERT and DELETE functions of the per-cluster lists (0050, containers and identities) now
 * also add one to the generation in the upsert they already make. Containers are also updated in
 * place: a pod's new version (clusters' ingestion, Fix 14) and an owner resolved again rewrite
 * their rows, and either may change a sorted column (an image, an owner), so a statement-level
 * UPDATE trigger adds one to the generation of every cluster whose containers the statement
 * rewrote. Posture only writes the rows that differ (inventory-store.ts), so a push that changes
 * nothing moves nothing. Its transition table holds the new rows only: a row never changes account
 * or cluster (the totals assume as much), so the new rows name every cluster touched. Identities'
 * updates are not counted: their list takes no bookmarks.
 */
export const containersGeneration: Migration = {
  id: '0056-containers-generation',
  sql: `
create or replace function cluster_list_totals_inserted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total, generation)
  select account_id, tg_argv[0], cluster_id, count(*), 1 from new_rows
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id)
    do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;
create or replace function cluster_list_totals_deleted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total, generation)
  select account_id, tg_argv[0], cluster_id, -count(*), 1 from old_rows
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id)
    do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;
-- A row updated exists, and so does its cluster's totals row (its insert made it).
create function cluster_list_generation_updated() returns trigger language plpgsql as $fn$
begin
  update cluster_list_totals t set generation = t.generation + 1
   where t.list = tg_argv[0] and (t.account_id, t.cluster_id) in (select account_id, cluster_id from new_rows);
  return null;
end
$fn$;
create trigger list_generation_updated after update on inventory_containers
  referencing new table as new_rows for each statement
  execute function cluster_list_generation_updated('inventory_containers');
`,
};
