import type { Migration } from '../migrator.js';

/**
 * The totals of the inventory packages list filtered by one severity (`filters=severity:critical`,
 * "packages with at least one critical vulnerability"), kept per account at ingestion like the
 * unfiltered lists' of 0022 (docs/performance.md, "Fix 26"). That filter was counted from the
 * count's index (0045): one entry per matching package, so its cost grew with the account (all
 * 50,000 packages of the large run's account match `critical`: p99 223 ms, 2.5 times the small
 * run's).
 *
 * One row per account and severity, `vulnerability_packages_<severity>`: the packages whose
 * `<severity>_count` is above 0. A package's counts change when a scan of one of its images adds or
 * drops vulnerabilities, so unlike 0022's package totals these follow UPDATE as well: each
 * statement adds, per account and severity, the rows that came in minus those that went out. An
 * `insert ... on conflict do update` fires the INSERT trigger with the rows it inserted and the
 * UPDATE trigger with the rows it updated, so each row is counted once.
 *
 * Lock order as in 0022: the packages are written by scan pushes only, under the account's scan
 * lock, which is taken before these rows. Existing packages are counted here.
 */
export const packageSeverityTotals: Migration = {
  id: '0048-package-severity-totals',
  sql: `
alter table list_totals drop constraint list_totals_list_check;
alter table list_totals add constraint list_totals_list_check check (list in (
  'inventory_containers', 'cluster_resources_live', 'vulnerability_packages', 'identities',
  'vulnerability_packages_critical', 'vulnerability_packages_high', 'vulnerability_packages_medium',
  'vulnerability_packages_low', 'vulnerability_packages_negligible', 'vulnerability_packages_unspecified'));

-- The severity lists a package row belongs to: one per count above 0.
create function package_severity_lists(p vulnerability_packages) returns setof text
language sql immutable parallel safe as $fn$
  select s.list
    from unnest(
      array['vulnerability_packages_critical', 'vulnerability_packages_high', 'vulnerability_packages_medium',
            'vulnerability_packages_low', 'vulnerability_packages_negligible', 'vulnerability_packages_unspecified'],
      array[p.critical_count, p.high_count, p.medium_count, p.low_count, p.negligible_count, p.unspecified_count]
    ) as s (list, count)
   where s.count > 0
$fn$;

create function list_totals_package_severities_inserted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select n.account_id, l.list, count(*)
    from new_rows n cross join lateral package_severity_lists(n) as l (list)
   group by n.account_id, l.list order by n.account_id, l.list
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function list_totals_package_severities_updated() returns trigger language plpgsql as $fn$
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
  return null;
end
$fn$;

create function list_totals_package_severities_deleted() returns trigger language plpgsql as $fn$
begin
  insert into list_totals as t (account_id, list, total)
  select o.account_id, l.list, -count(*)
    from old_rows o cross join lateral package_severity_lists(o) as l (list)
   group by o.account_id, l.list order by o.account_id, l.list
  on conflict (account_id, list) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function list_totals_package_severities_truncated() returns trigger language plpgsql as $fn$
begin
  delete from list_totals
   where list in ('vulnerability_packages_critical', 'vulnerability_packages_high', 'vulnerability_packages_medium',
                  'vulnerability_packages_low', 'vulnerability_packages_negligible', 'vulnerability_packages_unspecified');
  return null;
end
$fn$;

create trigger list_totals_severities_inserted after insert on vulnerability_packages
  referencing new table as new_rows for each statement
  execute function list_totals_package_severities_inserted();
create trigger list_totals_severities_updated after update on vulnerability_packages
  referencing old table as old_rows new table as new_rows for each statement
  execute function list_totals_package_severities_updated();
create trigger list_totals_severities_deleted after delete on vulnerability_packages
  referencing old table as old_rows for each statement
  execute function list_totals_package_severities_deleted();
create trigger list_totals_severities_truncated after truncate on vulnerability_packages
  for each statement execute function list_totals_package_severities_truncated();

insert into list_totals (account_id, list, total)
select p.account_id, l.list, count(*)
  from vulnerability_packages p cross join lateral package_severity_lists(p) as l (list)
 group by p.account_id, l.list;
`,
};
