import type { Migration } from '../migrator.js';

/** The account's rows of `table` whose stored search text contains p_pattern (an ILIKE pattern), whole. */
const rowsFunction = (table: string) => `
create function ${table}_search(p_account uuid, p_pattern text)
  returns setof ${table}
  language sql stable security definer
  set search_path = pg_catalog, public
  rows 200
  as $$
    select t.* from public.${table} t
     where t.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.${table}')))
       and t.search_text like lower(p_pattern collate "default")
  $$;
`;

/**
 * `q` on inventory containers and packages without reading each match back (docs/performance.md,
 * "Fix 21").
 *
 * The search functions of 0029 and 0042 return the ids of the matching rows, so a list's page
 * fetched every match again to sort the matches: for containers, by primary key (1,776 index
 * lookups for a medium account's `q=svc-12`, 10 of the page's 32 ms; 8,888 at large, where the
 * page's p99 was 3 s); for packages, by a hash join over a sequential scan of the account's
 * packages (10,000 rows at medium, 50,000 at large). The search's bitmap heap scan has already
 * read each matching row to recheck the pattern: these functions return them whole, and the page
 * sorts what they return.
 *
 * The same rule as the ids functions: SECURITY DEFINER so that the trigram index serves LIKE under
 * row-level security, and the account must be in the caller's scope (or the system scope, or a
 * role the policies do not bind). A list searched and nothing else kept counting the ids
 * functions' rows, which materialize less, until Fix 22: the page now counts the rows it sorts,
 * and the ids functions are no longer called (they stay for a server of an older build).
 */
export const searchRows: Migration = {
  id: '0044-search-rows',
  sql: rowsFunction('inventory_containers') + rowsFunction('vulnerability_packages'),
};
