import type { Migration } from '../migrator.js';

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
 * role the policies do not bind). A list searched and nothing else keeps counting the ids
 * functions' rows, which materialize less.
 */
const scopeRule = (table: string) => `(p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.${table}')))`;

export const searchRows: Migration = {
  id: '0044-search-rows',
  sql: `
-- the account's containers whose searched fields contain p_pattern (an ILIKE pattern), whole
create function inventory_containers_search(p_account uuid, p_pattern text)
  returns setof inventory_containers
  language sql stable security definer
  set search_path = pg_catalog, public
  rows 200
  as $$
    select c.* from public.inventory_containers c
     where c.account_id = p_account
       and ${scopeRule('inventory_containers')}
       and c.search_text like lower(p_pattern collate "default")
  $$;

-- the account's packages whose name or version contains p_pattern (an ILIKE pattern), whole
create function vulnerability_packages_search(p_account uuid, p_pattern text)
  returns setof vulnerability_packages
  language sql stable security definer
  set search_path = pg_catalog, public
  rows 200
  as $$
    select p.* from public.vulnerability_packages p
     where p.account_id = p_account
       and ${scopeRule('vulnerability_packages')}
       and p.search_text like lower(p_pattern collate "default")
  $$;
`,
};
