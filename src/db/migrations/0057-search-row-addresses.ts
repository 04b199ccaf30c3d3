import type { Migration } from '../migrator.js';

/**
 * The addresses (`ctid`) of the account's rows of `table` whose stored search text contains
 * p_pattern (an ILIKE pattern), as one array. The rule of 0044: SECURITY DEFINER, so that the
 * trigram index serves LIKE under row-level security, and the account must be in the caller's
 * scope, the system scope, or a role the policies do not bind. Written out again rather than
 * shared with 0053's: a released migration's SQL must not move when a later one's template changes.
 *
 * One value, not a set: the function runs once per search and hands over six bytes a match, with
 * nothing for a tuplestore to hold, so 0053's work_mem setting has nothing left to bound.
 */
const addressesFunction = (name: string, table: string) => `
create or replace function ${name}(p_account uuid, p_pattern text)
  returns tid[]
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select coalesce(array_agg(t.ctid), '{}')
      from public.${table} t
     where t.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.${table}')))
       and t.search_text like (select public.posture_search_words(lower(p_pattern collate "default")))
  $$;
`;

/**
 * `q` on inventory containers and packages: the search function returns where its matches are,
 * and the page reads them from the table by that address (a TID scan, under the policies: `tid`'s
 * equality is leakproof), with every column there to filter, sort and count by
 * (docs/performance.md, "Fix 56").
 *
 * The functions of 0044, 0051 and 0053 return their matches as rows of a set: a function in FROM
 * forms each match as a composite value of its columns and copies it into a tuplestore, and that
 * cost about as much again as the search itself. For the large benchmark account's `q=svc-12`
 * (8,888 matches of 228,136 containers), counting the rows of `inventory_containers_search_keys`
 * (18 columns) took one and a half to twice as long as the same search inlined, round after
 * round (38 to 54 ms against 21 to 32), and a function returning the ids alone about as long as
 * the inlined search.
 *
 * Same matches, same rule. A row's address is only good within the snapshot that found it: the
 * page's statement calls the function and reads the addresses in one snapshot, in which every
 * version the search saw stays where it was. The earlier functions stay, unchanged, for a server
 * of the previous build running beside a migrated database.
 */
export const searchRowAddresses: Migration = {
  id: '0057-search-row-addresses',
  sql: `${addressesFunction('inventory_containers_search_tids', 'inventory_containers')}${addressesFunction(
    'vulnerability_packages_search_tids',
    'vulnerability_packages',
  )}`,
};
