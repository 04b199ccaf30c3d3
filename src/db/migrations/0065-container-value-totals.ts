import type { Migration } from '../migrator.js';

/**
 * The inventory containers' totals kept per cluster and value of each filter key that may select
 * a large share of an account, so that the containers list filtered by one such key (any of its
 * values, with or without clusters) reads its `total_count` instead of counting the rows
 * (docs/performance.md, "Fix 77"): `filters=owner_kind:Deployment` counted 228,136 rows of the
 * large benchmark account, 79 ms. The keys are those a container shares with many others: its
 * cluster's name, its own name (a sidecar's), its image (name, repository, tag, digest) and its
 * owner (kind, name, namespace). Those that name one pod or one container (pod_uid, pod_name,
 * container_id, owner_uid, owner_id) select few rows and are counted.
 *
 * Containers are inserted, deleted, and updated in place (a pod's new version, an owner resolved
 * again: 0056), so three statement triggers add each statement's rows (+1 new, -1 old) up by
 * cluster, key and value and upsert the sums that are not 0, in key order. A row per (account,
 * key, value, cluster) is written only by statements over that cluster's containers, which
 * Posture writes only under the cluster's lock (0050's argument): no push waits here that did not
 * already wait. Rows that reach 0 stay, as 0064's do: a value seen once is likely seen again.
 * TRUNCATE forgets them with the totals.
 *
 * The functions run as the caller: under row-level security the rows a statement wrote passed the
 * account policy, and so do their values' rows (the migrator's policy covers account_id). Existing
 * containers are counted here. The list of keys is this migration's; the list's code reads it
 * from KEPT_CONTAINER_KEYS (modules/list-totals), and a test holds the two to the same keys.
 */

/** Each row's (key, value) pairs, one per kept key: `c` is the transition table's row. */
const VALUES_OF_ROW = `cross join lateral (values
  ('cluster_name', c.cluster_name), ('name', c.name),
  ('image_name', c.image_name), ('image_repo', c.image_repo), ('image_tag', c.image_tag),
  ('image_digest', c.image_digest),
  ('owner_kind', c.owner_kind), ('owner_name', c.owner_name), ('owner_namespace', c.owner_namespace)
) v(key, value)`;

/** The containers' trigger function for one statement kind, from its per-row deltas. */
const keptByValue = (name: string, deltas: string) => `
create function ${name}() returns trigger language plpgsql as $fn$
begin
  insert into container_value_totals as t (account_id, key, value, cluster_id, total)
  select account_id, key, value, cluster_id, sum(delta) from (${deltas}) d
   group by account_id, key, value, cluster_id having sum(delta) <> 0
   order by account_id, key, value, cluster_id
  on conflict (account_id, key, value, cluster_id) do update set total = t.total + excluded.total;
  return null;
end
$fn$;`;

const added = (table: string) =>
  `select c.account_id, v.key, v.value, c.cluster_id, 1 as delta from ${table} c ${VALUES_OF_ROW}`;
const removed = (table: string) =>
  `select c.account_id, v.key, v.value, c.cluster_id, -1 as delta from ${table} c ${VALUES_OF_ROW}`;

/** The values' totals of the containers stored before the migration (exported for its test). */
export const VALUE_TOTALS_OF_STORED_CONTAINERS = `insert into container_value_totals (account_id, key, value, cluster_id, total)
select c.account_id, v.key, v.value, c.cluster_id, count(*) from inventory_containers c ${VALUES_OF_ROW}
 group by c.account_id, v.key, v.value, c.cluster_id`;

export const containerValueTotals: Migration = {
  id: '0065-container-value-totals',
  sql: `
create table container_value_totals (
  account_id uuid not null,
  key text collate "C" not null,
  value text collate "C" not null,
  cluster_id uuid not null,
  total bigint not null,
  primary key (account_id, key, value, cluster_id)
);
${keptByValue('container_value_totals_inserted', added('new_rows'))}
${keptByValue('container_value_totals_updated', `${added('new_rows')} union all ${removed('old_rows')}`)}
${keptByValue('container_value_totals_deleted', removed('old_rows'))}

create trigger list_totals_values_inserted after insert on inventory_containers
  referencing new table as new_rows for each statement execute function container_value_totals_inserted();
create trigger list_totals_values_updated after update on inventory_containers
  referencing old table as old_rows new table as new_rows
  for each statement execute function container_value_totals_updated();
create trigger list_totals_values_deleted after delete on inventory_containers
  referencing old table as old_rows for each statement execute function container_value_totals_deleted();

create function container_value_totals_truncated() returns trigger language plpgsql as $fn$
begin
  delete from container_value_totals;
  return null;
end
$fn$;
create trigger list_totals_values_truncated after truncate on inventory_containers
  for each statement execute function container_value_totals_truncated();

${VALUE_TOTALS_OF_STORED_CONTAINERS};
`,
};
