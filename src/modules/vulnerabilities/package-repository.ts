/**
 * SQL of the inventory packages list (#9). Counts are stored on the rows; `in_use` is joined at
 * read time from the live containers running the account's scanned images (by image digest), so
 * it follows pod churn without any write on the package rows.
 */
import type { Executor } from '../../db/database.js';
import { entryJson, type RowVersion, type VersionedEntryRow } from '../../db/entry-json.js';
import type { Filters } from '../../http/filters.js';
import type { OffsetPage } from '../../http/paging.js';
import {
  addSearch,
  type SearchClause,
  type SearchPath,
  searchByRowAddress,
  TOTAL_OF_KEYS,
  trigramSearchable,
} from '../../http/search.js';
import { type ListOrder, orderSql, type Sort } from '../../http/sort.js';
import type { Severity } from '../../ingest/vulnerabilities/severity.js';
import {
  bookmarkedList,
  bookmarkPage,
  bookmarkSql,
  generationColumn,
  type PageBookmarks,
  type WithGeneration,
} from '../list-totals/page-bookmarks.js';
import { pageRange } from '../list-totals/page-range.js';
import {
  countOf,
  type KeptList,
  keptGenerationSelect,
  keptTotal,
  keptTotalOf,
  listPage,
} from '../list-totals/repository.js';
import {
  carriedMatchesColumns,
  keepCarriedMatches,
  matchesCte,
  matchesSliceSql,
  pageFromKeptMatches,
  type SearchedMatches,
  searchName,
  type WithCarriedMatches,
} from '../list-totals/searched-matches.js';
import { Where } from '../resources/where.js';
import { InventoryPackageSchema, type PackageFilterKey, type PackageSortField } from './package-schemas.js';

export interface PackageQuery {
  filters: Filters<PackageFilterKey>;
  inUse: boolean | undefined;
  severities: Severity[];
  q?: string | undefined;
  /** how `q` reaches the trigram index (search.ts) */
  searchPath: SearchPath;
  sort: Sort<PackageSortField>;
  page: OffsetPage;
  /** where the unfiltered list's pages are bookmarked (page-bookmarks.ts); none: every page walks */
  bookmarks?: PageBookmarks | undefined;
  /** where the matches of `q` alone in name order are kept for later pages; none: every page searches */
  searches?: SearchedMatches | undefined;
}

/**
 * The sorts whose order is one direction over NOT NULL columns (name, version, id): a row
 * comparison orders their rows as the list does, so their pages may start from a bookmark. A
 * count's order breaks its ties by name ascending whatever its direction.
 */
const BOOKMARKED_SORTS: ReadonlySet<PackageSortField> = new Set(['name', 'version']);

/**
 * Images some live container of the account runs; computed once per query, from the workloads
 * maintained at ingestion (usage-store.ts: the usage view's rows without duplicates), read from
 * their primary key instead of joining every container of the account. For the `in_use` filter,
 * which must judge every package of the account.
 */
const IN_USE_IMAGES = `with in_use_images as materialized (
  select distinct image_id from vulnerability_image_workloads where account_id = $1)`;

const IN_USE = `exists (select 1 from vulnerability_image_packages ip
   where ip.account_id = p.account_id and ip.package_id = p.id
     and ip.image_id in (select image_id from in_use_images))`;

/**
 * `in_use` of one package of a page: its images (primary key prefix), each probed in the image
 * workloads' primary key. Used on the page's rows only: given the whole account, the planner
 * hashed every image package of the account for each page (docs/performance.md, "Fix 16d"). A
 * scalar subquery, not EXISTS: the planner may turn an EXISTS into a hash of every image package
 * of the account whenever it misjudges how many rows reach it (it did for a page read from the
 * list's end, "Fix 17a"); a scalar subquery is only ever probed row by row.
 */
const IN_USE_OF_ROW = `coalesce((select true from vulnerability_image_packages ip
   where ip.account_id = p.account_id and ip.package_id = p.id
     and exists (select 1 from vulnerability_image_workloads w
                  where w.account_id = ip.account_id and w.image_id = ip.image_id)
   limit 1), false)`;

const COLUMNS = `p.id, p.name, p.version, p.images_count, p.critical_count, p.high_count, p.medium_count,
  p.low_count, p.negligible_count, p.unspecified_count, p.total_vulerabilities_count`;

/**
 * `in_use` of a page's row `p`, as `u.in_use`: its entry and its version both read it. `offset 0`
 * keeps the planner from pulling the subquery up into each reference, which would probe twice.
 */
const IN_USE_LATERAL = `cross join lateral (select ${IN_USE_OF_ROW} as in_use offset 0) u`;

/** A page row (the page's `p`) as the API's JSON text, written by PostgreSQL (db/entry-json.ts). */
const ENTRY = entryJson(InventoryPackageSchema, {
  id: 'p.id',
  name: 'p.name',
  version: 'p.version',
  in_use: 'u.in_use',
  images_count: 'p.images_count',
  critical_count: 'p.critical_count',
  high_count: 'p.high_count',
  medium_count: 'p.medium_count',
  low_count: 'p.low_count',
  negligible_count: 'p.negligible_count',
  unspecified_count: 'p.unspecified_count',
  total_vulerabilities_count: 'p.total_vulerabilities_count',
});

/**
 * An entry's version (row-bytes-cache.ts): the package row's `xmin` and its `in_use`, which comes
 * from other tables and changes with the pods while the row stays as it was. `xmin` is the
 * table row's, read as `row_xmin` by the page's rows.
 */
const ROW_VERSION = `concat(p.row_xmin, '/', u.in_use) as row_version`;

/** `row_xmin` of the page's rows `p`, read from the table. */
const ROW_XMIN = 'p.xmin::text as row_xmin';

/** Name sorts tie-break on version, count sorts on name then version; id last, so paging is stable. */
function listOrder(sort: Sort<PackageSortField>): ListOrder {
  const terms = (...columns: string[]) => columns.map((column) => ({ column, direction: sort.direction }));
  if (sort.field === 'name') return terms('p.name', 'p.version', 'p.id');
  if (sort.field === 'version') return terms('p.version', 'p.name', 'p.id');
  return [
    { column: `p.${sort.field}`, direction: sort.direction },
    ...['p.name', 'p.version', 'p.id'].map((column) => ({ column, direction: 'asc' as const })),
  ];
}

interface PackageWhere {
  where: Where;
  /** how `q` was searched */
  searched: SearchClause;
  /** the list kept at ingestion whose total is the query's, if any (migrations 0022 and 0048) */
  kept: KeptList | undefined;
}

/** The list's filters, and the rows they apply to (as `p`). */
function whereOf(accountId: string, query: PackageQuery): PackageWhere {
  const where = new Where('p.account_id = $', accountId);
  const names = query.filters.get('name');
  if (names) where.addOneOf('p.name', names, 'text');
  const versions = query.filters.get('version');
  if (versions) where.addOneOf('p.version', versions, 'text');
  if (query.inUse !== undefined) where.addRaw(query.inUse ? IN_USE : `not ${IN_USE}`);
  const searched = addSearch(where, accountId, query.q, SEARCH, query.searchPath);
  // Severities last: whether anything else narrowed the list decides which total is kept.
  const narrowedOtherwise = where.filtered;
  if (query.severities.length > 0) {
    // Severity values come from a closed list, so the column names below are never caller text.
    where.addRaw(`(${query.severities.map((severity) => `p.${severity}_count > 0`).join(' or ')})`);
  }
  return { where, searched, kept: keptListOf(query.severities, narrowedOtherwise) };
}

/** The whole list and each single severity's packages are kept; any other filter is counted. */
function keptListOf(severities: readonly Severity[], narrowedOtherwise: boolean): KeptList | undefined {
  if (narrowedOtherwise) return undefined;
  if (severities.length === 0) return 'vulnerability_packages';
  return severities.length === 1 ? `vulnerability_packages_${severities[0]!}` : undefined;
}

/**
 * `q` matches when the name or the version contains it: through the trigram index, the page reads
 * the rows at the addresses the search function found (search.ts, migration 0057).
 */
const SEARCH = searchByRowAddress({
  addressesOf: 'vulnerability_packages_search_tids',
  rowAddress: 'p.ctid',
  searchText: 'p.search_text',
  fieldByField: (param) => `(p.name ilike ${param} or p.version ilike ${param})`,
});

type KeptSearchQuery = PackageQuery & { q: string; searches: SearchedMatches };

/**
 * `q` alone in the default order (by name, either direction): the pages whose search's matches
 * are kept for the next (searched-matches.ts), with no filter (`in_use` and `severity` are filters too).
 */
function keptSearchOf(query: PackageQuery): KeptSearchQuery | undefined {
  if (query.q === undefined || query.searches === undefined) return undefined;
  if (!trigramSearchable(query.q) || query.filters.size > 0 || query.sort.field !== 'name') return undefined;
  return { ...query, q: query.q, searches: query.searches };
}

/**
 * The rows `p` of a kept search's page (keptSearchOf) read from its matches: the ids of every
 * match in name order as one array, computed once (matchesCte), the page a slice of it, its total
 * the array's length. The page's first row carries the array and the packages' generation, read in
 * the same snapshot, for the search's later pages (searched-matches.ts).
 */
function rowsSlicedInNameOrder(where: Where, query: KeptSearchQuery): string {
  const account = where.owner;
  const slice = matchesSliceSql('m.ids', query.page, query.sort.direction);
  const ids = `array(select p.id from vulnerability_packages p where ${where.sql}
                     ${orderSql(listOrder({ field: 'name', direction: 'asc' }))})`;
  return `(${matchesCte(ids, keptGenerationSelect('vulnerability_packages', account))}
           select p.account_id, ${ROW_XMIN}, ${COLUMNS}, cardinality(m.ids) as total, u.position
                  ${carriedMatchesColumns(query.searches, 'u.position')}
             from m, unnest(${slice}) with ordinality as u (id, position)
             join vulnerability_packages p on p.account_id = ${account} and p.id = u.id)`;
}

/**
 * A page of a kept search read from its matches: the page's ids by primary key, in a statement
 * that reads nothing unless the packages' generation is still the one the search read.
 */
function pageOfKeptMatches<Row>(
  db: Executor,
  accountId: string,
  query: KeptSearchQuery,
  { select, lateral }: { select: string; lateral: string },
) {
  return pageFromKeptMatches(
    query.searches,
    searchName(accountId, 'vulnerability_packages', query.q),
    query.page,
    query.sort.direction,
    async (ids, generation) => {
      const where = new Where('p.account_id = $', accountId);
      const { rows } = await db.query<Row>(
        `select ${select}
           from (select p.account_id, ${ROW_XMIN}, ${COLUMNS}, k.position
                   from unnest(${where.next(ids)}::uuid[]) with ordinality as k (id, position)
                   join vulnerability_packages p on ${where.sql} and p.id = k.id
                  where (${keptGenerationSelect('vulnerability_packages', where.owner)}) = ${where.next(generation)}) p
           ${IN_USE_LATERAL}
           ${lateral}
          order by p.position`,
        where.params,
      );
      return rows;
    },
  );
}

/**
 * One page of the list with its total, each row's `select` (over the page's rows `p` and their
 * `u.in_use`, after `lateral`) in the list's order.
 */
async function packagePage<Row>(
  db: Executor,
  accountId: string,
  query: PackageQuery,
  { select, lateral }: { select: string; lateral: string },
) {
  const keptSearch = keptSearchOf(query);
  const fromKept =
    keptSearch && (await pageOfKeptMatches<Row>(db, accountId, keptSearch, { select, lateral }));
  if (fromKept) return fromKept;
  const { where, searched, kept } = whereOf(accountId, query);
  const { countedWithPage } = searched;
  const count = countOf(
    `${IN_USE_IMAGES} select count(*) as total from vulnerability_packages p where ${where.sql}`,
    where.params,
  );
  // The page's rows first, from the nearer end of the list, then `in_use` of those alone.
  // Searched through the trigram index, the page's rows count every match too: the page carries
  // its total.
  const order = listOrder(query.sort);
  // The unfiltered list's pages are bookmarked (page-bookmarks.ts): past the bookmarks' first offset,
  // each page's rows carry the list's generation, and a page near a row seen before starts from
  // it while the list is unchanged.
  const bookmarks =
    kept === 'vulnerability_packages' && BOOKMARKED_SORTS.has(query.sort.field)
      ? query.bookmarks?.forPageAt(query.page.offset)
      : undefined;
  const list = bookmarkedList(
    accountId,
    'vulnerability_packages',
    query.sort,
    (id, where) =>
      `from vulnerability_packages p where p.account_id = ${where.next(accountId)} and p.id = ${where.next(id)}::uuid`,
  );
  // A kept search's page is a slice of its matches in name order, which carries them to be kept.
  const pageRows = keptSearch
    ? rowsSlicedInNameOrder(where, keptSearch)
    : pageRange(where, {
        rows: `select p.account_id, ${ROW_XMIN}, ${COLUMNS}${countedWithPage ? `, ${TOTAL_OF_KEYS}` : ''} from vulnerability_packages p where ${where.sql}`,
        order,
        page: query.page,
        keptTotal: kept === undefined ? undefined : keptTotalOf(accountId, kept),
        bookmark: bookmarks && bookmarkSql(bookmarks, list, query.page.offset),
      });
  const page = {
    sql: `${query.inUse !== undefined ? IN_USE_IMAGES : ''}
    select ${select}${countedWithPage ? ', p.total' : ''}${bookmarks ? generationColumn(list, where) : ''}${keptSearch ? ', p.search_generation, p.search_ids' : ''}
      from ${pageRows} p
      ${IN_USE_LATERAL}
      ${lateral}
     ${keptSearch ? `order by p.position ${keptSearch.sort.direction}` : orderSql(order)}`,
    params: where.params,
  };
  const read = await listPage<WithCarriedMatches<WithGeneration<Row & { id: string }>>>(db, page, {
    carried: countedWithPage,
    kept: kept === undefined ? undefined : keptTotal(accountId, kept),
    count,
  });
  if (keptSearch)
    return keepCarriedMatches(
      keptSearch.searches,
      searchName(accountId, 'vulnerability_packages', keptSearch.q),
      read,
    );
  return bookmarks ? bookmarkPage(bookmarks, list, query.page.offset, read) : read;
}

/** A page of packages: each entry's text and its version. */
export function listPackages(db: Executor, accountId: string, query: PackageQuery) {
  return packagePage<VersionedEntryRow>(db, accountId, query, {
    select: `p.id, ${ROW_VERSION}, ${ENTRY.select}`,
    lateral: ENTRY.lateral,
  });
}

/**
 * A page of packages' ids and versions alone: the server holds most entries' bytes at their version
 * (row-bytes-cache.ts) and reads the others by id (`packagesByIds`).
 */
export function listPackageVersions(db: Executor, accountId: string, query: PackageQuery) {
  return packagePage<RowVersion>(db, accountId, query, { select: `p.id, ${ROW_VERSION}`, lateral: '' });
}

/** The account's packages `ids`: each entry's text and its version. */
export async function packagesByIds(db: Executor, accountId: string, ids: readonly string[]) {
  const { rows } = await db.query<VersionedEntryRow>(
    `select p.id, ${ROW_VERSION}, ${ENTRY.select}
       from (select p.account_id, ${ROW_XMIN}, ${COLUMNS}
               from vulnerability_packages p
              where p.account_id = $1 and p.id = any($2::uuid[])) p
       ${IN_USE_LATERAL}
       ${ENTRY.lateral}`,
    [accountId, ids],
  );
  return rows;
}
