import type { Statement } from '../db/database.js';

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
 * A table whose `q` goes through a trigram index over a stored search text, by owner's functions
 * (SECURITY DEFINER, so row-level security does not keep the planner from the index) that apply
 * the account and the caller's scope themselves: migrations 0015 and 0029 (inventory containers),
 * 0042 (packages), 0044 (the rows whole).
 */
export interface TrigramSearch {
  table: 'inventory_containers' | 'vulnerability_packages';
  /** returns the matching rows' ids: what a count needs */
  ids: 'inventory_containers_matching' | 'vulnerability_packages_matching';
  /** returns the matching rows whole: what a page sorts, without reading each match back */
  rows: 'inventory_containers_search' | 'vulnerability_packages_search';
  /** the filter clause matching the ILIKE pattern bound as `param` field by field */
  fieldByField: (param: string) => string;
}

/** What the search needs of a list's filters (modules/resources/where.ts). */
interface SearchedWhere {
  next(value: unknown): string;
  addRaw(clause: string): unknown;
  narrowedBySource(): unknown;
}

/**
 * The rows a list reads, searched by `q`: through the trigram index, the search function's rows
 * (the list is then narrowed by its source rather than by a clause); a phrase the index cannot
 * serve is searched field by field in the table. Without `q`, the table.
 */
export function searchedRows(
  where: SearchedWhere,
  accountId: string,
  q: string | undefined,
  search: TrigramSearch,
): string {
  if (!q) return search.table;
  const pattern = containsPattern(q);
  if (trigramSearchable(q)) {
    where.narrowedBySource();
    return `${search.rows}(${where.next(accountId)}, ${where.next(pattern)})`;
  }
  where.addRaw(search.fieldByField(where.next(pattern)));
  return search.table;
}

/**
 * The count of a list whose one filter is a `q` the trigram index serves: the rows its ids
 * function returns, which materializes less than the rows function. For a large match set
 * reading each match back by primary key was about half of the count (docs/performance.md,
 * "Fix 19"). Undefined when the list has another filter, or no such `q`: it counts its own rows
 * then.
 */
export function searchedCount(
  search: TrigramSearch,
  accountId: string,
  filters: { q: string | undefined; otherFilters: boolean },
): Statement | undefined {
  const { q, otherFilters } = filters;
  if (otherFilters || !q || !trigramSearchable(q)) return undefined;
  return {
    sql: `select count(*) as total from ${search.ids}($1, $2)`,
    params: [accountId, containsPattern(q)],
  };
}
