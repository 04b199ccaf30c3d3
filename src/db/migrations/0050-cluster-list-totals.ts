import type { Migration } from '../migrator.js';

/**
 * The kept totals of the lists a Kubernetes push writes (containers, live resources, identities)
 * move from one row per account (0022) to one row per cluster, as the runtime lists' did in 0028
 * (docs/performance.md, "Fix 40").
 *
 * With one row per account, every push of the account upserted the same rows from its first
 * insert until it committed, so pushes to two clusters of one account queued on them whatever
 * their locks allowed: an account's fleet ingested one cluster at a time. A row per (account,
 * list, cluster) is written only by statements over that cluster's rows, and Posture writes those
 * only under the cluster's lock (Kubernetes pushes: clusters/ingest-service.ts). A list's total is
 * the sum of its account's cluster rows (modules/list-totals).
 *
 * The triggers keep their names and events; only their functions change: each statement adds, per
 * account and cluster, the rows it brought in minus those it took out (live resources: the
 * versions entering and leaving `is_latest and deleted_at is null`). TRUNCATE forgets the list.
 * The packages' totals stay per account in list_totals: scan pushes write them under the account's
 * scan lock. Existing rows are counted here, and their account rows dropped.
 *
 * The functions run as the caller: under row-level security the rows a statement wrote passed the
 * account policy, and so does their totals row (the migrator's policy covers account_id).
 */
const LISTS = ['inventory_containers', 'cluster_resources_live', 'identities'] as const;

export const clusterListTotals: Migration = {
  id: '0050-cluster-list-totals',
  sql: `
create table cluster_list_totals (
  account_id uuid not null,
  list text not null check (list in (${LISTS.map((list) => `'${list}'`).join(', ')})),
  cluster_id uuid not null,
  total bigint not null,
  primary key (account_id, list, cluster_id)
);

-- Rows counted whole (containers, identities): tg_argv[0] names the list.
create function cluster_list_totals_inserted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total)
  select account_id, tg_argv[0], cluster_id, count(*) from new_rows
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;
create function cluster_list_totals_deleted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total)
  select account_id, tg_argv[0], cluster_id, -count(*) from old_rows
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;
create function cluster_list_totals_truncated() returns trigger language plpgsql as $fn$
begin
  delete from cluster_list_totals where list = tg_argv[0];
  return null;
end
$fn$;

-- Live resource versions: the same four functions as 0022's, per cluster.
create or replace function list_totals_live_resources_inserted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total)
  select account_id, 'cluster_resources_live', cluster_id, count(*) from new_rows
   where is_latest and deleted_at is null
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;
create or replace function list_totals_live_resources_updated() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total)
  select account_id, 'cluster_resources_live', cluster_id, sum(delta) from (
    select account_id, cluster_id, 1 as delta from new_rows where is_latest and deleted_at is null
    union all
    select account_id, cluster_id, -1 from old_rows where is_latest and deleted_at is null
  ) d
   group by account_id, cluster_id having sum(delta) <> 0 order by account_id, cluster_id
  on conflict (account_id, list, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;
create or replace function list_totals_live_resources_deleted() returns trigger language plpgsql as $fn$
begin
  insert into cluster_list_totals as t (account_id, list, cluster_id, total)
  select account_id, 'cluster_resources_live', cluster_id, -count(*) from old_rows
   where is_latest and deleted_at is null
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

drop trigger list_totals_truncated on cluster_resources;
create trigger list_totals_truncated after truncate on cluster_resources
  for each statement execute function cluster_list_totals_truncated('cluster_resources_live');
${['inventory_containers', 'identities']
  .map(
    (table) => `drop trigger list_totals_inserted on ${table};
drop trigger list_totals_deleted on ${table};
drop trigger list_totals_truncated on ${table};
create trigger list_totals_inserted after insert on ${table}
  referencing new table as new_rows for each statement
  execute function cluster_list_totals_inserted('${table}');
create trigger list_totals_deleted after delete on ${table}
  referencing old table as old_rows for each statement
  execute function cluster_list_totals_deleted('${table}');
create trigger list_totals_truncated after truncate on ${table}
  for each statement execute function cluster_list_totals_truncated('${table}');`,
  )
  .join('\n')}

insert into cluster_list_totals (account_id, list, cluster_id, total)
select account_id, 'inventory_containers', cluster_id, count(*) from inventory_containers
 group by account_id, cluster_id
union all
select account_id, 'identities', cluster_id, count(*) from identities group by account_id, cluster_id
union all
select account_id, 'cluster_resources_live', cluster_id, count(*) from cluster_resources
 where is_latest and deleted_at is null group by account_id, cluster_id;
delete from list_totals where list in (${LISTS.map((list) => `'${list}'`).join(', ')});
`,
};
