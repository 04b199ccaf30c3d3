import type { Migration } from '../migrator.js';

/**
 * The totals of the unfiltered lists, kept per account at ingestion (issue 9, docs/performance.md
 * "Fix 12"). Page 1 of a list returns `total_count`; unfiltered, that was a count(*) over every
 * row of the account, linear in the account (47,144 containers: 10 to 17 ms under row-level
 * security). list_totals holds that number, one row per account and list:
 *
 * - `inventory_containers`, `vulnerability_packages`, `identities`: every row of the account (the
 *   lists' WHERE when no filter is given);
 * - `cluster_resources_live`: the latest, undeleted versions (`is_latest and deleted_at is null`,
 *   the resources list's default predicate and that of its live indexes).
 *
 * Statement-level AFTER triggers with transition tables keep them, so no write path can skip them
 * (pushes, watch deletes, snapshot reconciliation and restores, scans, a COPY, a hand-written
 * statement): each statement adds, per account, the rows it brought in minus those it took out,
 * in one upsert. Only the resources need an UPDATE trigger (an update moves a version in or out of
 * the live predicate); the other lists' rows never change account, so their updates (identity
 * upserts, owner re-resolution, package counts) pay nothing. TRUNCATE forgets the list's totals.
 *
 * Lock order: the upsert locks the account's list_totals rows until commit. Every writer of these
 * tables in Posture holds the account's scan lock first (Kubernetes pushes: scan lock, cluster row,
 * then these rows; scan pushes: scan lock, then these rows), so two transactions never wait for
 * each other here in opposite orders. A statement spanning several accounts locks their rows in
 * account order.
 *
 * The functions run as the caller: under row-level security the rows a statement wrote passed the
 * account policy, and so does their account's totals row. Existing rows are counted here.
 */
export const listTotals: Migration = {
  id: '0022-list-totals',
  sql: `
create table list_totals (
  account_id uuid not null,
  list text not null
    check (list in ('inventory_containers', 'cluster_resources_live', 'vulnerability_packages', 'identities')),
  total bigint not null,
  primary key (account_id, list)
);

-- INSERT of rows counted whole: tg_argv[0] names the list.
create function list_totals_rows_inserted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select account_id, tg_argv[0], count(*) from new_rows group by account_id order by account_id
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function list_totals_rows_deleted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select account_id, tg_argv[0], -count(*) from old_rows group by account_id order by account_id
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function list_totals_truncated() returns trigger language plpgsql as $fn$
begin
  delete from list_totals where list = tg_argv[0];
  return null;
end
$fn$;

-- Live resource versions: inserted, updated (overwritten, deleted, restored) or deleted.
create function list_totals_live_resources_inserted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select account_id, 'cluster_resources_live', count(*) from new_rows
   where is_latest and deleted_at is null
   group by account_id order by account_id
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function list_totals_live_resources_updated() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select account_id, 'cluster_resources_live', sum(delta) from (
    select account_id, 1 as delta from new_rows where is_latest and deleted_at is null
    union all
    select account_id, -1 from old_rows where is_latest and deleted_at is null
  ) d
   group by account_id having sum(delta) <> 0 order by account_id
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function list_totals_live_resources_deleted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select account_id, 'cluster_resources_live', -count(*) from old_rows
   where is_latest and deleted_at is null
   group by account_id order by account_id
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create trigger list_totals_inserted after insert on inventory_containers
  referencing new table as new_rows for each statement
  execute function list_totals_rows_inserted('inventory_containers');
create trigger list_totals_deleted after delete on inventory_containers
  referencing old table as old_rows for each statement
  execute function list_totals_rows_deleted('inventory_containers');
create trigger list_totals_truncated after truncate on inventory_containers
  for each statement execute function list_totals_truncated('inventory_containers');

create trigger list_totals_inserted after insert on vulnerability_packages
  referencing new table as new_rows for each statement
  execute function list_totals_rows_inserted('vulnerability_packages');
create trigger list_totals_deleted after delete on vulnerability_packages
  referencing old table as old_rows for each statement
  execute function list_totals_rows_deleted('vulnerability_packages');
create trigger list_totals_truncated after truncate on vulnerability_packages
  for each statement execute function list_totals_truncated('vulnerability_packages');

create trigger list_totals_inserted after insert on identities
  referencing new table as new_rows for each statement
  execute function list_totals_rows_inserted('identities');
create trigger list_totals_deleted after delete on identities
  referencing old table as old_rows for each statement
  execute function list_totals_rows_deleted('identities');
create trigger list_totals_truncated after truncate on identities
  for each statement execute function list_totals_truncated('identities');

create trigger list_totals_inserted after insert on cluster_resources
  referencing new table as new_rows for each statement
  execute function list_totals_live_resources_inserted();
create trigger list_totals_updated after update on cluster_resources
  referencing old table as old_rows new table as new_rows for each statement
  execute function list_totals_live_resources_updated();
create trigger list_totals_deleted after delete on cluster_resources
  referencing old table as old_rows for each statement
  execute function list_totals_live_resources_deleted();
create trigger list_totals_truncated after truncate on cluster_resources
  for each statement execute function list_totals_truncated('cluster_resources_live');

insert into list_totals (account_id, list, total)
select account_id, 'inventory_containers', count(*) from inventory_containers group by account_id
union all
select account_id, 'vulnerability_packages', count(*) from vulnerability_packages group by account_id
union all
select account_id, 'identities', count(*) from identities group by account_id
union all
select account_id, 'cluster_resources_live', count(*) from cluster_resources
 where is_latest and deleted_at is null group by account_id;
`,
};
