/**
 * `q` on the identities list: the trigram index of their names and namespaces (migration 0060,
 * docs/performance.md "Fix 61") finds the matches, as one array of ids; a page of them is then
 * read the cheaper of two ways (Fix 73).
 *
 * - **By id**: each match read by primary key, then sorted. The cost is the matches', at any size
 *   of account: the way for a phrase naming a few identities.
 * - **Along the sort's index**: the account's identities walked in the list's order, each tested
 *   against a hash of the matches, until the page is full. For a phrase held by a large share of
 *   the account (the suite's `sa-1` matches two identities in five at medium size) the walk to a
 *   page's end is short, and reading every match by id was most of the page's cost: 2,222 reads
 *   for fifty rows.
 */
import type { OffsetPage } from '../../http/paging.js';
import {
  containsPattern,
  type SearchPath,
  searchTextClause,
  TOTAL_OF_KEYS,
  type TrigramSearch,
  trigramSearchable,
} from '../../http/search.js';
import { type ListOrder, orderSql, type Sort } from '../../http/sort.js';
import { rowCountLiteral } from '../list-totals/page-range.js';
import { keptTotalOf } from '../list-totals/repository.js';
import type { Where } from '../resources/where.js';
import type { IdentitySortField } from './list-query.js';

/** The ids of the account's identities matching the ILIKE pattern bound as `pattern`, as one uuid[]. */
function matchedIds(account: string, pattern: string, path: SearchPath): string {
  if (path === 'function') return `identity_search_ids(${account}, ${pattern})`;
  // As an array, like the function's: as `i.id in (select ...)` PGlite joined each match to its
  // identity by a probe of its own, half again as slow (docs/performance.md, "Fix 61").
  return `array(select s.identity_id from identity_search_texts s
                 where s.account_id = ${account} and ${searchTextClause('s.search_text', pattern)})`;
}

/** The search as the list's filters add it (search.ts addSearch): the matches, read by id. */
export const IDENTITY_SEARCH: TrigramSearch = {
  // The sub-select makes the function's call an init plan, run once before the scan; the cast makes
  // `any` take it as an array rather than as a sub-select's rows.
  functionMatches: (account, pattern) =>
    `i.id = any((select ${matchedIds(account(), pattern, 'function')})::uuid[])`,
  tableMatches: (account, pattern) => `i.id = any(${matchedIds(account(), pattern, 'table')})`,
  // collate "default": the case folding of the indexed path (both columns are "C")
  fieldByField: (param) =>
    `((i.name collate "default") ilike ${param} or (i.namespace collate "default") ilike ${param})`,
};

/**
 * The sorts an index of (account_id, <field>, id) reads in the list's order, in both directions.
 * The nullable times sort their nulls last both ways, which a backward read of their index does
 * not give; type, namespace and linked_resources have no index of their own.
 */
const WALKED_SORTS: ReadonlySet<IdentitySortField> = new Set([
  'risk_score',
  'name',
  'created_at',
  'updated_at',
]);

/**
 * How many index entries the walk may read for each match the other way reads by id. On the
 * medium suite's PGlite store (`q=sa-1`, 2,222 matches of 5,458 identities), walking 2,749 entries
 * took about 2 ms and reading the matches by id 4 to 6 ms; a page at offset 1,500, whose walk
 * reads about 3,800 entries, still took half the time of the reading by id (docs/performance.md,
 * "Fix 73").
 */
const WALKED_ENTRIES_PER_MATCH = 4;

/**
 * Whether a page searched by `q` may be read along its sort's index: the caller checks that `q`
 * is the list's only filter, since the walk's total counts the matches alone.
 */
export function walkableSearch(q: string | undefined, sort: Sort<IdentitySortField>): q is string {
  return q !== undefined && trigramSearchable(q) && WALKED_SORTS.has(sort.field);
}

/**
 * The keys of a page of the identities matching `q`, filtered by nothing else (walkableSearch),
 * as a parenthesized subquery, in no particular order, with the list's total in a `total` column
 * (search.ts, `TOTAL_OF_KEYS`); binds its values on `where`, whose only clause is the account's.
 *
 * The matches are found once, and the read is chosen by PostgreSQL at execution, as pageRange
 * chooses a page's end: two branches of a UNION ALL, each gated by a condition that holds for
 * exactly one of them. The walk is expected to read (offset + limit) * identities / matches index
 * entries before its page is full, and is taken while that is at most WALKED_ENTRIES_PER_MATCH
 * entries for each match.
 *
 * The walk's total is the number of matches: each is an identity of the account (the texts'
 * foreign key), and no other filter applies. Its test of a match is written `(... in (...)) is
 * true` so that it stays a hashed sub-plan of the scan's filter: as a plain `in`, PostgreSQL would
 * make it a join and read every match again.
 */
export function searchedPageKeys(
  where: Where,
  search: { accountId: string; q: string; path: SearchPath; order: ListOrder; page: OffsetPage },
): string {
  const account = where.owner;
  const ids = matchedIds(account, where.next(containsPattern(search.q)), search.path);
  const identities = `coalesce((${keptTotalOf(search.accountId, 'identities')(where)})::bigint, 0)`;
  const limit = rowCountLiteral(search.page.limit);
  const offset = rowCountLiteral(search.page.offset);
  // numeric: a deep offset times the identities may pass a bigint's range
  const walked = `(${offset} + ${limit})::numeric * ${identities}
      <= ${WALKED_ENTRIES_PER_MATCH} * cardinality(ids)::bigint * cardinality(ids)`;
  const page = `${orderSql(search.order)} limit ${limit} offset ${offset}`;
  // Two CTEs: as a sub-select of the second, the first would be pulled up into it, and the
  // search run once for every mention of `ids`.
  return `(with found as materialized (select ${ids} as ids),
      matches as materialized (select ids, cardinality(ids)::bigint as total, ${walked} as walked from found)
    select * from (
      select * from (
        select i.account_id, i.id, ${TOTAL_OF_KEYS} from identities i
         where i.account_id = ${account} and i.id = any((select ids from matches)::uuid[]) ${page}) by_id
       where not (select walked from matches)
      union all
      select * from (
        select i.account_id, i.id, (select total from matches) as total from identities i
         where i.account_id = ${account} and (i.id in (select unnest(ids) from matches)) is true ${page}) walked
       where (select walked from matches)
    ) either_read limit ${limit})`;
}
