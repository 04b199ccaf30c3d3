import type { Migration } from '../migrator.js';

/**
 * The totals of the unfiltered runtime lists, kept at ingestion (issue 9, docs/performance.md
 * "Fix 16d"), as migration 0022 keeps those of the inventory lists. Page 1 of HTTP requests,
 * baseline fingerprints and runtime insights returned a `total_count` counted over every row of
 * the account.
 *
 * Kept per cluster, not per account: runtime pushes serialise on their cluster's advisory lock
 * only (modules/runtime/ingest-service.ts), so pushes to two clusters of one account run side by
 * side. A single row per account would make them queue on it until commit, and their statements
 * (observations, baselines, insights) would take those rows in whatever order each push writes
 * them. A row per (account, list, cluster) is only ever written under that cluster's lock: by its
 * pushes, and by the learning-window sweep, which holds the runtime locks of the clusters it
 * closes windows in. No transaction waits here that did not already wait. A list's total is the
 * sum of its account's few cluster rows.
 *
 * Statement-level AFTER triggers with transition tables, as in 0022: each INSERT adds the rows it
 * brought in (an upsert counts only the rows it inserted), each DELETE subtracts those it took
 * out, TRUNCATE forgets the list. Rows never change account or cluster (observations update
 * every column but cluster_id; insights and baselines keep theirs), so no UPDATE trigger.
 * Posture deletes no runtime rows today (no retention job, no cluster deletion); the DELETE
 * trigger keeps the totals right for any that comes, and for a statement typed by hand.
 *
 * The functions run as the caller: under row-level security the rows a statement wrote passed
 * the account policy, and so does their totals row (the migrator's policy covers account_id).
 * Existing rows are counted here.
 */

/** The kept lists, each named after its table (modules/list-totals, `KeptRuntimeList`). */
const LISTS = ['runtime_http_observations', 'runtime_baselines', 'runtime_insights'] as const;

/** The three triggers that keep one table's totals. */
const keptBy = (table: string) => `create trigger runtime_list_totals_inserted after insert on ${table}
  referencing new table as new_rows for each statement
  execute function runtime_list_totals_inserted('${table}');
create trigger runtime_list_totals_deleted after delete on ${table}
  referencing old table as old_rows for each statement
  execute function runtime_list_totals_deleted('${table}');
create trigger runtime_list_totals_truncated after truncate on ${table}
  for each statement execute function runtime_list_totals_truncated('${table}');
`;

/** The totals of one table's existing rows. */
const counted = (table: string) => `select account_id, '${table}', cluster_id, count(*) from ${table}
 group by account_id, cluster_id`;

export const runtimeListTotals: Migration = {
  id: '0028-runtime-list-totals',
  sql: `
create table runtime_list_totals (
  account_id uuid not null,
  list text not null
    check (list in ('runtime_http_observations', 'runtime_baselines', 'runtime_insights')),
  cluster_id uuid not null,
  total bigint not null,
  primary key (account_id, list, cluster_id)
);

-- tg_argv[0] names the list; rows are counted whole.
create function runtime_list_totals_inserted() returns trigger language plpgsql as $fn$
begin
  insert into runtime_list_totals as t (account_id, list, cluster_id, total)
  select account_id, tg_argv[0], cluster_id, count(*) from new_rows
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function runtime_list_totals_deleted() returns trigger language plpgsql as $fn$
begin
  insert into runtime_list_totals as t (account_id, list, cluster_id, total)
  select account_id, tg_argv[0], cluster_id, -count(*) from old_rows
   group by account_id, cluster_id order by account_id, cluster_id
  on conflict (account_id, list, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;

create function runtime_list_totals_truncated() returns trigger language plpgsql as $fn$
begin
  delete from runtime_list_totals where list = tg_argv[0];
  return null;
end
$fn$;

${LISTS.map(keptBy).join('\n')}
insert into runtime_list_totals (account_id, list, cluster_id, total)
${LISTS.map(counted).join('\nunion all\n')};
`,
};
