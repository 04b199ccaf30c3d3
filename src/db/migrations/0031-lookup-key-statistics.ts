import type { Migration } from '../migrator.js';

/**
 * A Kubernetes push looks its objects up by thousands of keys at a time (`id = any($3)` over the
 * versions it holds, `uid = any(...)` over their objects, their names, links and findings). For
 * each element of such an array the planner estimates the selectivity against the column's most
 * common values: it decompresses the column's statistics and compares the element with each of
 * them (`scalararraysel`, `var_eq_const`). With PostgreSQL's default of 100 most common values
 * and histogram bounds, planning a lookup of 2,000 uids took 12 to 60 ms, often longer than
 * running it, and about a tenth of PostgreSQL's CPU during ingestion (docs/performance.md,
 * "Fix 17e"). These columns are near-unique keys: their equality estimates hardly use the list,
 * and nothing filters them by range. Ten values each keep the estimates and plans (measured on
 * the benchmark's data: the same plans) and take planning to about 2 ms.
 *
 * Only the statistics kept for these columns change (the rows sampled stay those of the tables'
 * other columns); the ANALYZE of the columns applies it at once.
 */
export const lookupKeyStatistics: Migration = {
  id: '0031-lookup-key-statistics',
  sql: `
alter table cluster_resources
  alter column id set statistics 10,
  alter column uid set statistics 10,
  alter column name set statistics 10;
alter table identity_source_links
  alter column uid set statistics 10,
  alter column key set statistics 10;
alter table findings
  alter column source_key set statistics 10;
analyze cluster_resources (id, uid, name);
analyze identity_source_links (uid, key);
analyze findings (source_key);
`,
};
