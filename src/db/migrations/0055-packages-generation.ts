import type { Migration } from '../migrator.js';

/**
 * A generation for each account's inventory packages, beside their kept total (0022), as 0054 keeps
 * one for the live resources: the number of statements that have inserted, deleted or updated the
 * account's packages. The packages list bookmarks its pages (modules/list-totals/page-bookmarks.ts,
 * docs/performance.md "Fix 53") and seeks from a bookmark only while the generation it reads in
 * its own snapshot is the bookmark's.
 *
 * The INSERT and DELETE triggers already upsert the account's `vulnerability_packages` row once
 * per statement; they now also add one to its generation. Updates (a scan changing a package's
 * counts) are counted by the UPDATE trigger of the severity totals (0048), which already runs once
 * per statement over the rows it changed. A name or version never changes, so the orders that take
 * bookmarks do not move on an update; counting updates keeps a future writer that did from
 * leaving a bookmark wrong. The other rows of list_totals keep generation 0.
 */
export const packagesGeneration: Migration = {
  id: '0055-packages-generation',
  sql: `
alter table list_totals add column generation bigint not null default 0;

create or replace function list_totals_rows_inserted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total, generation)
  select account_id, tg_argv[0], count(*), 1 from new_rows group by account_id order by account_id
  on conflict (account_id, list) do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;

create or replace function list_totals_rows_deleted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total, generation)
  select account_id, tg_argv[0], -count(*), 1 from old_rows group by account_id order by account_id
  on conflict (account_id, list) do update set total = t.total + excluded.total, generation = t.generation + 1;
  return null;
end
$fn$;

create or replace function list_totals_package_severities_updated() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select account_id, list, sum(delta) from (
    select n.account_id, l.list, 1 as delta
      from new_rows n cross join lateral package_severity_lists(n) as l (list)
    union all
    select o.account_id, l.list, -1
      from old_rows o cross join lateral package_severity_lists(o) as l (list)
  ) d
   group by account_id, list having sum(delta) <> 0 order by account_id, list
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  -- A package updated exists, and so does its account's row (its insert made it).
  update list_totals set generation = generation + 1
   where list = 'vulnerability_packages' and account_id in (select distinct account_id from new_rows);
  return null;
end
$fn$;
`,
};
