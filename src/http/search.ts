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
 * migrations 0015, 0029 and 0061; inventory packages, 0042; identities, 0060). A phrase shorter
 * than a trigram has none, so the index would return every row of the account to be rechecked; a
 * phrase holding the separator of the stored text's fields could match across two of them. Such
 * phrases are searched field by field.
 */
export function trigramSearchable(q: string): boolean {
  return q.length >= 3 && !q.includes(SEARCH_FIELD_SEPARATOR);
}

/**
 * A list whose `q` goes through a trigram index over a stored search text: inventory packages'
 * own column (migration 0042; the text's form 0053), the identities' and the containers' tables of
 * texts (0060, 0061). Under row-level security the index is read by an owner's function
 * (SECURITY DEFINER, so the policies do not keep the planner from the index) that applies the
 * account and the caller's scope itself and returns where the matches are. Where the policies bind
 * nothing, the index is read directly (`SearchPath`).
 */
export interface TrigramSearch {
  /** the clause keeping the matches the owner's function returns, for the bound pattern */
  functionMatches: SearchMatches;
  /** the clause keeping the matches through the trigram index's own condition */
  tableMatches: SearchMatches;
  /** the filter clause matching the ILIKE pattern bound as `param` field by field */
  fieldByField: (param: string) => string;
}

/**
 * A clause keeping a search's matches, for the ILIKE pattern bound as `pattern`. `account()` binds
 * the list's account and returns its placeholder, for a clause that names it: a bound parameter the
 * statement does not use has no type PostgreSQL could infer.
 */
export type SearchMatches = (account: () => string, pattern: string) => string;

/**
 * The search of a table holding its own search text (packages): the owner's function returns the
 * addresses (`ctid`) of the matching rows (migration 0057), which the page reads from the table.
 */
export function searchByRowAddress(table: {
  /** the owner's function returning the matches' addresses as one `tid[]` */
  addressesOf: 'vulnerability_packages_search_tids';
  /** the row's address, qualified by the list's alias (`c.ctid`) */
  rowAddress: string;
  /** the stored search text, qualified by the list's alias (`c.search_text`) */
  searchText: string;
  fieldByField: (param: string) => string;
}): TrigramSearch {
  return {
    // The cast makes `any` take the sub-select as an array rather than as a sub-select's rows. As
    // an `= any(...)` of `ctid` it is a TID scan's condition, the rows read by address alone.
    functionMatches: (account, pattern) =>
      `${table.rowAddress} = any((select ${table.addressesOf}(${account()}, ${pattern}))::tid[])`,
    // the list's own account clause is the scope
    tableMatches: (_account, pattern) => searchTextClause(table.searchText, pattern),
    fieldByField: table.fieldByField,
  };
}

/**
 * How a searched list reaches the trigram index: through the search function, or the table itself.
 *
 * The function exists for row-level security: LIKE is not leakproof, so under the policies the
 * planner would not use the index for it. On PGlite the server runs as the superuser, whom the
 * policies bind nothing (docs/security.md, "Roles"), and the list's own `account_id` clause is the
 * scope, as everywhere else there: a function call there only adds the copy of every match into
 * the array of their addresses (docs/performance.md, "Fix 45", when it was a tuplestore of the
 * matching rows: about a tenth of a searched containers page's CPU on the embedded engine).
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
}

/** How a list's filters search `q`. */
export interface SearchClause {
  /**
   * Whether the page's keys count the matches too (`TOTAL_OF_KEYS`), so one run of the search
   * serves the page and its `total_count` (list-totals' `listPage`). Counted in a statement of
   * its own, the search ran twice per request: the index scan and the recheck of every match were
   * most of a searched page's cost (docs/performance.md, "Fix 22").
   */
  countedWithPage: boolean;
}

/**
 * The column a searched page's key select adds: the count of every row its filters let through,
 * computed before the sort and the limit cut the page. It is the same on each row of the page.
 */
export const TOTAL_OF_KEYS = 'count(*) over () as total';

/**
 * Adds `q` to a list's filters: through the trigram index, either the matches the search function
 * found or the index's clause on the table (`path`); a phrase the index cannot serve is searched
 * field by field.
 *
 * The function's result is a sub-select, computed once before the scan: as a plain call in a
 * filter it would run again for every row the planner chose to read some other way.
 */
export function addSearch(
  where: SearchedWhere,
  accountId: string,
  q: string | undefined,
  search: TrigramSearch,
  path: SearchPath,
): SearchClause {
  if (!q) return { countedWithPage: false };
  const pattern = containsPattern(q);
  if (!trigramSearchable(q)) {
    where.addRaw(search.fieldByField(where.next(pattern)));
    return { countedWithPage: false };
  }
  const matches = path === 'table' ? search.tableMatches : search.functionMatches;
  let account: string | undefined;
  where.addRaw(matches(() => (account ??= where.next(accountId)), where.next(pattern)));
  return { countedWithPage: true };
}
