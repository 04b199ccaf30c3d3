import type { Executor } from '../../db/database.js';
import { entryJson, type RowVersion, rowVersionOf, type VersionedEntryRow } from '../../db/entry-json.js';
import { isoUtc } from '../../db/iso-time.js';
import type { Filters } from '../../http/filters.js';
import type { OffsetPage } from '../../http/paging.js';
import {
  addSearch,
  containsPattern,
  type SearchMatches,
  type SearchPath,
  searchTextClause,
  TOTAL_OF_KEYS,
  type TrigramSearch,
  trigramSearchable,
} from '../../http/search.js';
import { orderSql, type Sort, sortOrder } from '../../http/sort.js';
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
  KEPT_CONTAINER_KEYS,
  keptContainersTotal,
  keptGenerationSelect,
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
import {
  type CONTAINER_FILTER_KEYS,
  CONTAINER_SEARCH_FIELDS,
  CONTAINER_SORT_FIELDS,
  InventoryContainerSchema,
} from './schemas.js';

export type ContainerFilterKey = (typeof CONTAINER_FILTER_KEYS)[number];
export type ContainerSortField = (typeof CONTAINER_SORT_FIELDS)[number];

/**
 * Each entry as the API's JSON text, written by PostgreSQL (db/entry-json.ts): the schema's
 * properties are, by design, inventory_containers columns.
 */
const ENTRY = entryJson(InventoryContainerSchema, {
  id: 'c.id',
  cluster_id: 'c.cluster_id',
  cluster_name: 'c.cluster_name',
  container_id: 'c.container_id',
  created_at: isoUtc('c.created_at'),
  name: 'c.name',
  image_repo: 'c.image_repo',
  image_name: 'c.image_name',
  image_tag: 'c.image_tag',
  image_digest: 'c.image_digest',
  owner_id: 'c.owner_id',
  owner_kind: 'c.owner_kind',
  owner_name: 'c.owner_name',
  owner_namespace: 'c.owner_namespace',
  owner_resource_version: 'c.owner_resource_version',
  owner_uid: 'c.owner_uid',
  pod_name: 'c.pod_name',
  pod_namespace: 'c.pod_namespace',
  pod_uid: 'c.pod_uid',
});

/**
 * Filter keys and sort fields are, by design, the names of inventory_containers columns. Every sort
 * field has an index that the page's key select reads in order: (account_id, field, id) for the
 * name, the container id and the creation time (migration 0015); (account_id, field, name, id)
 * for the keys many containers share, which are ordered by name within a value (THEN_BY_NAME, migration
 * 0066), so that a page filtered by one such value is read in name order from its own range.
 * Every sort column is NOT NULL (migration 0002), and the order is one direction with the id last,
 * so a row comparison orders rows as the list does: every sort's pages may start from a bookmark
 * (page-bookmarks.ts).
 */
const SORT_COLUMNS = Object.fromEntries(
  CONTAINER_SORT_FIELDS.map((field) => [field, `c.${field}`]),
) as Record<ContainerSortField, string>;

/** The keys many containers share (their totals are kept too), but the name itself. */
const THEN_BY_NAME: ReadonlySet<ContainerSortField> = new Set(
  CONTAINER_SORT_FIELDS.filter((field) => field !== 'name' && KEPT_CONTAINER_KEYS.has(field)),
);

/**
 * The ids of the containers whose search text holds the ILIKE pattern bound as `pattern`, as one
 * `uuid[]` in the list's name order (migration 0061): from the owner's search function under the
 * policies, or from the texts' table and its trigram index where they bind nothing (search.ts).
 */
function matchIdsInNameOrder(path: SearchPath, account: string, pattern: string): string {
  if (path === 'function') return `(select inventory_container_search_ids(${account}, ${pattern}))::uuid[]`;
  return `array(select s.container_id from inventory_container_search_texts s
                 where s.account_id = ${account} and ${searchTextClause('s.search_text', pattern)}
                 order by s.name, s.container_id)`;
}

/** The clause keeping the matches, read from inventory_containers by primary key. */
const matchesBy =
  (path: SearchPath): SearchMatches =>
  (account, pattern) =>
    `c.id = any(${matchIdsInNameOrder(path, account(), pattern)})`;

/**
 * `q` matches when one of the searched fields contains it: through the trigram index of the
 * containers' texts, the page reads its matches by primary key (search.ts, migration 0061).
 */
const SEARCH: TrigramSearch = {
  functionMatches: matchesBy('function'),
  tableMatches: matchesBy('table'),
  // collate "default": the case folding of the indexed path (most of these columns are "C")
  fieldByField: (param) =>
    `(${CONTAINER_SEARCH_FIELDS.map((field) => `(c.${field} collate "default") ilike ${param}`).join(' or ')})`,
};

/**
 * The keys of a page that `q` alone searches in the list's default order (by name): a slice of
 * the matches' ids, which the search returns in that order, each with their count. No match but
 * the page's is read from inventory_containers; read by primary key to be sorted, the large
 * benchmark account's 8,888 matches of `q=svc-12` took longer than the search (docs/performance.md,
 * "Fix 62"). Another order or a filter reads the matches.
 */
function keysSlicedInNameOrder(where: Where, query: ContainerListQuery & { q: string }): string {
  const account = where.owner;
  const pattern = where.next(containsPattern(query.q));
  // The same matches for the count of a page past the end (list-totals' listPage).
  where.addRaw(matchesBy(query.searchPath)(() => account, pattern));
  const slice = matchesSliceSql('m.ids', query.page, query.sort.direction);
  // Kept for the search's later pages (pageOfKeptMatches), on one row of the page: every match's id,
  // and the list's generation read in the same snapshot as they were.
  const generation = query.searches && keptGenerationSelect('inventory_containers', account);
  const carried = query.searches ? carriedMatchesColumns(query.searches, 'u.position') : '';
  return `(${matchesCte(matchIdsInNameOrder(query.searchPath, account, pattern), generation)}
           select ${account}::uuid as account_id, u.id, cardinality(m.ids) as total${carried}
             from m, unnest(${slice}) with ordinality as u (id, position))`;
}

/**
 * A page of `q` alone in name order read from the matches kept for its search
 * (searched-matches.ts): the page's slice of their ids, read by primary key, in a statement that
 * reads nothing unless the containers' generation is still the one the search read.
 */
function pageOfKeptMatches<Row>(
  db: Executor,
  accountId: string,
  query: ContainerListQuery & { q: string; searches: SearchedMatches },
  { select, lateral }: { select: string; lateral: string },
) {
  return pageFromKeptMatches(
    query.searches,
    searchName(accountId, 'inventory_containers', query.q),
    query.page,
    query.sort.direction,
    async (ids, generation) => {
      const where = new Where('c.account_id = $', accountId);
      const { rows } = await db.query<Row>(
        `select ${select}
           from unnest(${where.next(ids)}::uuid[]) with ordinality as k (id, position)
           join inventory_containers c on ${where.sql} and c.id = k.id
           ${lateral}
          where (${keptGenerationSelect('inventory_containers', where.owner)}) = ${where.next(generation)}
          order by k.position`,
        where.params,
      );
      return rows;
    },
  );
}

/** Whether a page is `q` alone through the trigram index, in name order (keysSlicedInNameOrder). */
const slicedInNameOrder = (query: ContainerListQuery): query is ContainerListQuery & { q: string } =>
  query.q !== undefined &&
  trigramSearchable(query.q) &&
  query.filters.size === 0 &&
  query.sort.field === 'name';

export interface ContainerListQuery {
  filters: Filters<ContainerFilterKey>;
  q?: string | undefined;
  /** how `q` reaches the trigram index (search.ts) */
  searchPath: SearchPath;
  sort: Sort<ContainerSortField>;
  page: OffsetPage;
  /** where the unfiltered list's pages are bookmarked (page-bookmarks.ts); none: every page walks */
  bookmarks?: PageBookmarks | undefined;
  /** where the matches of `q` alone in name order are kept for later pages; none: every page searches */
  searches?: SearchedMatches | undefined;
}

const ROW_VERSION = rowVersionOf('c');

/**
 * One page of the list with its total, each row's `select` (from inventory_containers `c`, after
 * `lateral`) in the list's order.
 */
async function containerPage<Row>(
  db: Executor,
  accountId: string,
  query: ContainerListQuery,
  { select, lateral }: { select: string; lateral: string },
) {
  const keptSearch =
    slicedInNameOrder(query) && query.searches ? { ...query, searches: query.searches } : undefined;
  const fromKept =
    keptSearch && (await pageOfKeptMatches<Row>(db, accountId, keptSearch, { select, lateral }));
  if (fromKept) return fromKept;
  const where = new Where('c.account_id = $', accountId);
  where.addColumnFilters(query.filters, 'c', KEPT_CONTAINER_KEYS);
  const sliced = slicedInNameOrder(query) ? keysSlicedInNameOrder(where, query) : undefined;
  const { countedWithPage } = sliced
    ? { countedWithPage: true }
    : addSearch(where, accountId, query.q, SEARCH, query.searchPath);
  const filter = where.sql;
  const count = countOf(`select count(*) as total from inventory_containers c where ${filter}`, where.params);
  // Unfiltered, by cluster alone or by one kept key, the total is kept at ingestion (migrations
  // 0050, 0065): no count of rows.
  const kept = keptContainersTotal(where, accountId);
  // A deferred join: the page's keys first, in order, from the sort's index alone (no row of the
  // account is read or sorted), from the nearer end of the list, then those rows by primary key,
  // put in order. Searched through the trigram index, the keys are a slice of the matches' ids in
  // name order, or the matches read by primary key and sorted; either way they count every match
  // too: the page carries its total.
  const order = sortOrder(
    query.sort,
    SORT_COLUMNS,
    ...(THEN_BY_NAME.has(query.sort.field) ? ['c.name'] : []),
    'c.id',
  );
  // The unfiltered list's pages are bookmarked (page-bookmarks.ts): past the bookmarks' first offset,
  // each page's rows carry the list's generation, and a page near a row seen before starts from
  // it while the list is unchanged.
  const bookmarks = where.filtered ? undefined : query.bookmarks?.forPageAt(query.page.offset);
  const list = bookmarkedList(
    accountId,
    'inventory_containers',
    query.sort,
    (id, where) =>
      `from inventory_containers c where c.account_id = ${where.next(accountId)} and c.id = ${where.next(id)}::uuid`,
  );
  const keys =
    sliced ??
    pageRange(where, {
      rows: `select c.account_id, c.id${countedWithPage ? `, ${TOTAL_OF_KEYS}` : ''} from inventory_containers c where ${filter}`,
      order,
      page: query.page,
      keptTotal: kept?.value,
      bookmark: bookmarks && bookmarkSql(bookmarks, list, query.page.offset),
    });
  const generation = bookmarks ? generationColumn(list, where) : '';
  const keptColumns = keptSearch ? ', k.search_generation, k.search_ids' : '';
  const page = {
    sql: `select ${select}${countedWithPage ? ', k.total' : ''}${generation}${keptColumns}
       from ${keys} k
       join inventory_containers c on c.account_id = k.account_id and c.id = k.id
       ${lateral}
      ${orderSql(order)}`,
    params: where.params,
  };
  const read = await listPage<WithCarriedMatches<WithGeneration<Row & { id: string }>>>(db, page, {
    carried: countedWithPage,
    kept: kept?.statement,
    count,
  });
  if (keptSearch)
    return keepCarriedMatches(
      keptSearch.searches,
      searchName(accountId, 'inventory_containers', keptSearch.q),
      read,
    );
  return bookmarks ? bookmarkPage(bookmarks, list, query.page.offset, read) : read;
}

/** A page of containers, each entry's text and its row's version. */
export function listContainers(db: Executor, accountId: string, query: ContainerListQuery) {
  return containerPage<VersionedEntryRow>(db, accountId, query, {
    select: `c.id, ${ROW_VERSION}, ${ENTRY.select}`,
    lateral: ENTRY.lateral,
  });
}

/**
 * A page of containers' ids and row versions alone: the server holds most entries' bytes at their
 * version (row-bytes-cache.ts) and reads the others by id (`containersByIds`).
 */
export function listContainerVersions(db: Executor, accountId: string, query: ContainerListQuery) {
  return containerPage<RowVersion>(db, accountId, query, { select: `c.id, ${ROW_VERSION}`, lateral: '' });
}

/** The account's containers `ids`: each entry's text and its row's version. */
export async function containersByIds(db: Executor, accountId: string, ids: readonly string[]) {
  const { rows } = await db.query<VersionedEntryRow>(
    `select c.id, ${ROW_VERSION}, ${ENTRY.select}
       from inventory_containers c ${ENTRY.lateral}
      where c.account_id = $1 and c.id = any($2::uuid[])`,
    [accountId, ids],
  );
  return rows;
}
