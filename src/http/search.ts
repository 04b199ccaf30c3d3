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

/** The owner's functions returning the ids of an account's rows whose stored search text matches. */
export type SearchFunction = 'inventory_containers_matching' | 'vulnerability_packages_matching';

/**
 * The count of a list whose one filter is a `q` the trigram index serves: the rows its search
 * function returns (the function applies the account and the caller's scope itself), without
 * reading each back by primary key as the list's own count would. For a large match set that
 * read-back is about half of the count (docs/performance.md, "Fix 19"). Undefined when the list
 * has another filter, or no such `q`: it counts its own rows then.
 */
export function searchedCount(
  searchFunction: SearchFunction,
  accountId: string,
  search: { q: string | undefined; otherFilters: boolean },
): Statement | undefined {
  const { q, otherFilters } = search;
  if (otherFilters || !q || !trigramSearchable(q)) return undefined;
  return {
    sql: `select count(*) as total from ${searchFunction}($1, $2)`,
    params: [accountId, containsPattern(q)],
  };
}
