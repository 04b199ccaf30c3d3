/**
 * The totals of the unfiltered lists, kept by the tables' triggers: the packages' per account
 * (migration 0022, docs/performance.md "Fix 12"; of one severity by 0048, "Fix 26"), those of the
 * lists a Kubernetes push writes per cluster (0050, "Fix 40"), the runtime lists' per cluster
 * (0028, "Fix 16d"). A list with no filter (`Where.filtered` is false) reads its total here
 * instead of counting the account's rows, and so does a per-cluster list filtered by clusters
 * alone ("Fix 76"); any other filter counts the range it selects, unless it is one of those kept.
 * The page and its total are read together: one round trip on PostgreSQL (db/database.ts,
 * `queryAll`).
 *
 * @example
 *   const kept = keptPerClusterTotal(where, accountId, 'inventory_containers');
 *   const total = kept?.statement ?? countOf('select count(*) as total from inventory_containers c where ...', where.params);
 *   return pageWithTotal<ContainerRow>(db, { sql: 'select ... limit ...', params: where.params }, total);
 */
import { type Executor, queryAll, type Statement } from '../../db/database.js';
import type { Severity } from '../../ingest/vulnerabilities/severity.js';
import type { KeptDimension, Where } from '../resources/where.js';

/** A kept total as SQL, its values bound on the statement's `where` when it is written. */
export type KeptTotalValue = (where: Where) => string;

/**
 * The lists kept per cluster (migration 0050): written by Kubernetes pushes, each under its
 * cluster's lock. `cluster_resources_live` counts the latest, undeleted versions.
 */
const CLUSTER_LISTS = ['inventory_containers', 'cluster_resources_live', 'identities'] as const;
type KeptClusterList = (typeof CLUSTER_LISTS)[number];

/**
 * The lists kept; `vulnerability_packages_<severity>` counts the packages with a vulnerability of
 * that severity (migration 0048). The packages' totals are kept per account: scan pushes write
 * them under the account's scan lock.
 */
export type KeptList = KeptClusterList | 'vulnerability_packages' | `vulnerability_packages_${Severity}`;

/** The runtime lists, kept per cluster (migration 0028): their rows are written under a cluster's lock. */
const RUNTIME_LISTS = ['runtime_http_observations', 'runtime_baselines', 'runtime_insights'] as const;
export type KeptRuntimeList = (typeof RUNTIME_LISTS)[number];

/** The table a list's totals are kept in: per cluster (0050, 0028), or per account (0022, 0048). */
function totalsTableOf(list: KeptList | KeptRuntimeList): string {
  if ((CLUSTER_LISTS as readonly string[]).includes(list)) return 'cluster_list_totals';
  return (RUNTIME_LISTS as readonly string[]).includes(list) ? 'runtime_list_totals' : 'list_totals';
}

/** The kept total of a list; no row yet means nothing was ever written to it for this account: 0. */
export function keptTotal(accountId: string, list: KeptList): Statement {
  return keptSum(totalsTableOf(list), accountId, [{ column: 'list', value: list }]).statement;
}

/**
 * The kept total of a list as a scalar subquery, for a page statement that needs it
 * (page-range.ts): bound on that statement's `where` only if the statement uses it, since an
 * unused parameter has no type PostgreSQL could infer. Null when nothing was ever written: 0.
 */
export function keptTotalOf(accountId: string, list: KeptList): KeptTotalValue {
  return keptSum(totalsTableOf(list), accountId, [{ column: 'list', value: list }]).value;
}

/** The lists whose generation is kept beside their total (migrations 0054 to 0056). */
export type GenerationList = 'cluster_resources_live' | 'inventory_containers' | 'vulnerability_packages';

/**
 * A list's generation as a scalar subquery, bound on the statement's `where`: a text that changes
 * whenever a statement may have changed the list (page-bookmarks.ts). A list kept per cluster
 * (the live resources, the containers) has a digest of the account's clusters, each with its own
 * generation: every row of a bookmarked page carries the value, and the clusters themselves are
 * some 45 bytes each, which at a hundred clusters would be 4.5 KB a row, 450 KB a page of 100.
 * The packages' is the account's. Null when nothing was ever written.
 */
export function keptGenerationOf(accountId: string, list: GenerationList): (where: Where) => string {
  return (where) => keptGenerationSelect(list, where.next(accountId));
}

/** keptGenerationOf for a statement that has bound the account already, as `account` (`$1`). */
export function keptGenerationSelect(list: GenerationList, account: string): string {
  if (list === 'vulnerability_packages') {
    return `select generation::text from list_totals
             where account_id = ${account} and list = 'vulnerability_packages'`;
  }
  return `select md5(string_agg(cluster_id::text || ':' || generation, ',' order by cluster_id))
            from cluster_list_totals
           where account_id = ${account} and list = '${list}'`;
}

/** The lists whose totals are kept per cluster: those a Kubernetes push writes, and the runtime lists. */
export type PerClusterList = KeptClusterList | KeptRuntimeList;

/** A kept total both ways: read beside a page, and as a subquery of a page's statement (pageRange). */
export interface KeptListTotal {
  statement: Statement;
  value: KeptTotalValue;
}

/** A condition on a kept total's rows: `column` equals `value`, or is one of `values`. */
type KeptTerm =
  | { column: string; value: string }
  | { column: string; values: readonly string[]; type: 'uuid' | 'text' };

/**
 * The sum of the account's rows of a totals table that meet `terms`, both ways. No row means
 * nothing was ever written there: null, read as 0.
 */
function keptSum(table: string, accountId: string, terms: readonly KeptTerm[]): KeptListTotal {
  const select = (bind: (value: unknown) => string) =>
    `select sum(total) as total from ${table} where account_id = ${bind(accountId)}${terms
      .map((term) =>
        'value' in term
          ? ` and ${term.column} = ${bind(term.value)}`
          : ` and ${term.column} = any(${bind(term.values)}::${term.type}[])`,
      )
      .join('')}`;
  const params: unknown[] = [];
  const sql = select((value) => `$${params.push(value)}`);
  return { statement: { sql, params }, value: (page) => select((value) => page.next(value)) };
}

/** The terms of the clusters a list is filtered by, if it is. */
function clusterTerms(kept: ReadonlyMap<KeptDimension, readonly string[]>): KeptTerm[] {
  const clusters = kept.get('cluster_id');
  return clusters === undefined ? [] : [{ column: 'cluster_id', values: clusters, type: 'uuid' }];
}

/**
 * The total of a per-cluster list for its `where`, where one is kept: unfiltered, the sum of the
 * account's cluster rows; filtered by clusters alone (Where.keptAlone: a cluster picked in the
 * console, `cluster_id:` in `filters`), the sum of those clusters' rows. A cluster named twice is
 * summed once, and one of another account has no row here, as it has none in the list. Counting
 * instead read every row of the clusters: 23 ms for the 114,068 containers of one cluster of the
 * large benchmark account, 51 ms for its 154,560 live resources (docs/performance.md, "Fix 76").
 * Undefined where the filter must be counted. The caller checks that `where` holds only the rows
 * the list's total counts (the live resources: `is_latest and deleted_at is null`).
 */
export function keptPerClusterTotal(
  where: Where,
  accountId: string,
  list: PerClusterList,
): KeptListTotal | undefined {
  const kept = where.keptAlone;
  if (kept === undefined || [...kept.keys()].some((dimension) => dimension !== 'cluster_id'))
    return undefined;
  return keptSum(totalsTableOf(list), accountId, [{ column: 'list', value: list }, ...clusterTerms(kept)]);
}

/**
 * The total of the live resources for `where`, where one is kept: as keptPerClusterTotal, and
 * also of some kinds (`resource_types`), of all clusters or some, from the totals kept per
 * cluster and kind (migration 0064). Counting the large benchmark account's 128,136 live pods
 * took 100 ms (docs/performance.md, "Fix 76"). The caller passes the live list's `where` only.
 */
export function keptLiveResourcesTotal(where: Where, accountId: string): KeptListTotal | undefined {
  const kept = where.keptAlone;
  const kinds = kept?.get('kind');
  if (kept === undefined || kinds === undefined) {
    return keptPerClusterTotal(where, accountId, 'cluster_resources_live');
  }
  return keptSum('live_resource_kind_totals', accountId, [
    { column: 'kind', values: kinds, type: 'text' },
    ...clusterTerms(kept),
  ]);
}

/**
 * The containers' filter keys whose totals are kept per cluster and value (migration 0065, whose
 * trigger functions name the same keys; test/ingest/list-totals.test.ts holds the two together).
 * The others name one pod or one container, and a count of what they select is short. Those
 * keys but the name are also indexed in name order within a value (migration 0066), and the
 * containers' sort by one of them is ordered so (inventory-containers/repository.ts).
 */
export const KEPT_CONTAINER_KEYS: ReadonlySet<string> = new Set([
  'cluster_name',
  'name',
  'image_name',
  'image_repo',
  'image_tag',
  'image_digest',
  'owner_kind',
  'owner_name',
  'owner_namespace',
]);

/**
 * The total of the containers for `where`, where one is kept: as keptPerClusterTotal, and also
 * filtered by one of KEPT_CONTAINER_KEYS (any of its values, of all clusters or some), from the
 * totals kept per cluster and value (migration 0065). A container has one value of each key, so
 * the values' sum counts each once, and a value named twice is summed once. Counting the large
 * benchmark account's 228,136 containers of `owner_kind:Deployment` took 79 ms (docs/performance.md,
 * "Fix 77"). Two such keys select what both select: counted.
 */
export function keptContainersTotal(where: Where, accountId: string): KeptListTotal | undefined {
  const kept = where.keptAlone;
  const keys = [...(kept?.keys() ?? [])].filter((dimension) => dimension !== 'cluster_id');
  const key = keys[0];
  if (kept === undefined || key === undefined) {
    return keptPerClusterTotal(where, accountId, 'inventory_containers');
  }
  if (keys.length > 1 || !KEPT_CONTAINER_KEYS.has(key)) return undefined;
  return keptSum('container_value_totals', accountId, [
    { column: 'key', value: key },
    { column: 'value', values: kept.get(key) ?? [], type: 'text' },
    ...clusterTerms(kept),
  ]);
}

/** A `select count(*) as total ...` statement, with a copy of the parameters as they are now. */
export function countOf(sql: string, params: readonly unknown[]): Statement {
  return { sql, params: [...params] };
}

/** A page's rows and its list's total (a kept total or a count), read together. */
export async function pageWithTotal<Row>(
  db: Executor,
  page: Statement,
  total: Statement,
): Promise<{ rows: Row[]; total: number }> {
  const [rows, counted] = await queryAll(db, [page, total]);
  return { rows: rows!.rows as Row[], total: Number(counted!.rows[0]?.total ?? 0) };
}

/**
 * A page whose rows carry their list's total in a `total` column (search.ts, `TOTAL_OF_KEYS`):
 * one statement, so one run of what the list reads for both. A page past the list's end has no
 * row to carry it: the list is then counted by `recount`.
 */
async function pageCarryingTotal<Row>(
  db: Executor,
  page: Statement,
  recount: Statement,
): Promise<{ rows: Row[]; total: number }> {
  const { rows } = await db.query<Row & { total: string | number }>(page.sql, page.params);
  const first = rows[0];
  if (first === undefined) {
    const counted = await db.query<{ total: string | number }>(recount.sql, recount.params);
    return { rows: [], total: Number(counted.rows[0]?.total ?? 0) };
  }
  return { rows: rows.map(({ total: _, ...row }) => row as Row), total: Number(first.total) };
}

/** Where a list's `total_count` comes from. */
export interface ListTotal {
  /** the page's rows carry it (a search's rows, search.ts); `count` counts a page past the end */
  carried: boolean;
  /** the total kept at ingestion: a list without filters (migration 0022) */
  kept: Statement | undefined;
  /** the count of the list's filtered rows */
  count: Statement;
}

/** A list's page and its total, from the first source that has it: carried, kept, or counted. */
export function listPage<Row>(db: Executor, page: Statement, total: ListTotal) {
  if (total.carried) return pageCarryingTotal<Row>(db, page, total.count);
  return pageWithTotal<Row>(db, page, total.kept ?? total.count);
}
