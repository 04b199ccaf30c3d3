/**
 * `q`: a case-insensitive substring search over an endpoint's documented text fields. The phrase
 * is matched literally: `%`, `_` and `\` in it are escaped before it reaches ILIKE, whose default
 * escape character is the backslash.
 *
 * @example
 *   containsPattern('50%_off') // '%50\\%\\_off%', used as `name ilike $1`
 */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** The separator of the fields joined in a stored search text. */
const SEARCH_FIELD_SEPARATOR = '\x1f';

/**
 * Whether a trigram index over a stored search text can serve `q` (inventory containers,
 * migrations 0015 and 0029; inventory packages, 0042). A phrase shorter than a trigram has none,
 * so the index would return every row of the account to be rechecked; a phrase holding the
 * separator of the stored text's fields could match across two of them. Such phrases are searched
 * field by field.
 */
export function trigramSearchable(q: string): boolean {
  return q.length >= 3 && !q.includes(SEARCH_FIELD_SEPARATOR);
}

/**
 * A table whose `q` goes through a trigram index over a stored search text (migrations 0015 and
 * 0029 for inventory containers, 0042 for packages, the text's form 0053). Under row-level
 * security the index is read by an owner's function (SECURITY DEFINER, so the policies do not
 * keep the planner from the index) that applies the account and the caller's scope itself and
 * returns the matching rows (migration 0044): whole for packages, the columns the page filters
 * and sorts by for containers (0051). Where the policies bind nothing, the table is read directly
 * (`SearchPath`).
 */
export interface TrigramSearch {
  table: 'inventory_containers' | 'vulnerability_packages';
  /** returns what a page filters and sorts the matches by, without reading each match back */
  rows: 'inventory_containers_search_keys' | 'vulnerability_packages_search';
  /** the stored search text, qualified by the list's alias (`c.search_text`) */
  searchText: string;
  /** the filter clause matching the ILIKE pattern bound as `param` field by field */
  fieldByField: (param: string) => string;
}

/**
 * How a searched list reaches the trigram index: through the search function, or the table itself.
 *
 * The function exists for row-level security: LIKE is not leakproof, so under the policies the
 * planner would not use the index for it. On PGlite the server runs as the superuser, whom the
 * policies bind nothing (docs/security.md, "Roles"), and the list's own `account_id` clause is the
 * scope, as everywhere else there: a function call there only adds the copy of every match into
 * the tuplestore that hands its rows back: about a tenth of a searched containers page's CPU on
 * the embedded engine (docs/performance.md, "Fix 45").
 */
export type SearchPath = 'function' | 'table';

export function searchPathFor(engine: 'postgres' | 'pglite'): SearchPath {
  return engine === 'pglite' ? 'table' : 'function';
}

/**
 * The trigram index's condition on a stored search text, for the ILIKE pattern bound as `param`,
 * as the search functions write it (migration 0053): the pattern put in the stored text's form
 * once, before the scan, so that the recheck does not compute it again for every candidate (0051).
 */
export function searchTextClause(searchText: string, param: string): string {
  return `${searchText} like (select posture_search_words(lower(${param} collate "default")))`;
}

/** What the search needs of a list's filters (modules/resources/where.ts). */
interface SearchedWhere {
  next(value: unknown): string;
  addRaw(clause: string): unknown;
  narrowedBySource(): unknown;
}

/** The rows a list reads (as its alias), and whether they are a search function's. */
export interface SearchedRows {
  /** the FROM item: the table, or the search function's call */
  rows: string;
  /**
   * The search function's rows: the page's keys count them too (`TOTAL_OF_KEYS`), so one run of
   * the search serves the page and its `total_count` (list-totals' `listPage`). Counted
   * in a statement of its own, the search ran twice per request: the index scan and the recheck
   * of every match were most of a searched page's cost (docs/performance.md, "Fix 22").
   */
  countedWithPage: boolean;
}

/**
 * The column a searched page's key select adds: the count of every row its filters let through,
 * computed before the sort and the limit cut the page. It is the same on each row of the page.
 */
export const TOTAL_OF_KEYS = 'count(*) over () as total';

/**
 * The rows a list reads, searched by `q`: through the trigram index, the search function's rows
 * (the list is then narrowed by its source rather than by a clause) or the table with the
 * index's clause (`path`); a phrase the index cannot serve is searched field by field in the
 * table. Without `q`, the table.
 */
export function searchedRows(
  where: SearchedWhere,
  accountId: string,
  q: string | undefined,
  search: TrigramSearch,
  path: SearchPath,
): SearchedRows {
  if (!q) return { rows: search.table, countedWithPage: false };
  const pattern = containsPattern(q);
  if (!trigramSearchable(q)) {
    where.addRaw(search.fieldByField(where.next(pattern)));
    return { rows: search.table, countedWithPage: false };
  }
  if (path === 'table') {
    where.addRaw(searchTextClause(search.searchText, where.next(pattern)));
    return { rows: search.table, countedWithPage: true };
  }
  where.narrowedBySource();
  return {
    rows: `${search.rows}(${where.next(accountId)}, ${where.next(pattern)})`,
    countedWithPage: true,
  };
}
