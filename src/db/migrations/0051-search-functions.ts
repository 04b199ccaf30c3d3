import type { Migration } from '../migrator.js';

/**
 * The columns a searched page of inventory containers filters and sorts by, as
 * `inventory_containers_search_keys` returns them: the key, then every filter key and sort field
 * of the list (modules/inventory-containers/schemas.ts), each with the table's type and collation
 * (the list's sorts rely on the collation; a test checks all three against the table).
 */
export const CONTAINER_KEY_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ['account_id', 'uuid'],
  ['id', 'uuid'],
  ['cluster_id', 'uuid'],
  ['cluster_name', 'text collate "C"'],
  ['container_id', 'text collate "C"'],
  ['name', 'text collate "C"'],
  ['image_digest', 'text collate "C"'],
  ['image_name', 'text collate "C"'],
  ['image_repo', 'text collate "C"'],
  ['image_tag', 'text collate "C"'],
  ['owner_id', 'text'],
  ['owner_kind', 'text collate "C"'],
  ['owner_name', 'text collate "C"'],
  ['owner_namespace', 'text collate "C"'],
  ['owner_uid', 'text'],
  ['pod_name', 'text'],
  ['pod_uid', 'text'],
  ['created_at', 'timestamptz'],
];

/**
 * The account's rows of `table` whose stored search text contains p_pattern (an ILIKE pattern),
 * as `selected`. The rule of 0044: SECURITY DEFINER, so that the trigram index serves LIKE under
 * row-level security, and the account must be in the caller's scope, the system scope, or a role
 * the policies do not bind.
 */
const searchFunction = (name: string, returns: string, table: string, selected: string) => `
create or replace function ${name}(p_account uuid, p_pattern text)
  returns ${returns}
  language sql stable security definer
  set search_path = pg_catalog, public
  rows 200
  as $$
    select ${selected}
      from public.${table} t
     where t.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.${table}')))
       and t.search_text like (select lower(p_pattern collate "default"))
  $$;
`;

/**
 * `q` on inventory containers and packages: the pattern lowered once per search, and containers'
 * searched pages given the columns they filter and sort by rather than whole rows
 * (docs/performance.md, "Fix 41").
 *
 * - The functions of 0044 matched `search_text like lower(p_pattern)`. In a function the pattern
 *   is a parameter, not a constant the planner folds, so the bitmap heap scan's recheck lowered
 *   it again for every candidate row the trigram index returned: for a medium account's
 *   `q=svc-2`, 28,912 candidates for 9,776 matches. A sub-select is computed once, before the
 *   scan, and still serves as the index condition.
 * - A function in FROM hands its rows over in a tuplestore, which spills to a temporary file past
 *   work_mem. `inventory_containers_search` returned whole rows, 698 bytes each in the suite's
 *   medium account, of which the page's key select reads at most these eighteen columns (405
 *   bytes): the stored search text alone is 163, and the image reference, the pod's owner, the
 *   runtime and the resource version are never filtered or sorted on.
 *
 * Same results, same rule. The whole-row containers function stays, unchanged, for a server of
 * the previous build running beside a migrated database; the packages function keeps its
 * signature and is replaced.
 */
export const searchFunctions: Migration = {
  id: '0051-search-functions',
  sql: `
create type inventory_container_search_key as (
${CONTAINER_KEY_COLUMNS.map(([name, type]) => `  ${name} ${type}`).join(',\n')}
);
${searchFunction(
  'inventory_containers_search_keys',
  'setof inventory_container_search_key',
  'inventory_containers',
  CONTAINER_KEY_COLUMNS.map(([name]) => `t.${name}`).join(', '),
)}${searchFunction('vulnerability_packages_search', 'setof vulnerability_packages', 'vulnerability_packages', 't.*')}`,
};
