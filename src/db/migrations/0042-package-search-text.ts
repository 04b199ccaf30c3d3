import type { Migration } from '../migrator.js';

/**
 * `q` on inventory packages through a trigram index (docs/performance.md, "Fix 18").
 *
 * The list matched `name ilike $q or version ilike $q` against every package of the account: no
 * index serves a substring, so `q` read the whole account twice (its page and its count), and its
 * p99 grew 4.8 times from small to medium while the account grew 10 times.
 *
 * This is the design 0015 and 0029 gave inventory containers: the searched fields are stored
 * lowered in a generated column, joined by chr(31) (a character no indexed search holds, so a
 * phrase cannot match across the name and the version), with a trigram index behind account_id.
 * ILIKE is not leakproof, so under row-level security the planner may not use it as an index
 * condition; the search therefore runs in vulnerability_packages_matching(), a SECURITY DEFINER
 * function of the owner that applies the rule of the policies of 0011, as
 * inventory_containers_matching() does.
 *
 * Adding a stored column rewrites the table once.
 */
export const packageSearchText: Migration = {
  id: '0042-package-search-text',
  sql: `
alter table vulnerability_packages
  add column search_text text generated always as (lower((name || chr(31) || version) collate "default")) stored;

create index vulnerability_packages_search on vulnerability_packages using gin (account_id, search_text gin_trgm_ops);

-- ids of the account's packages whose name or version contains p_pattern (an ILIKE pattern)
create function vulnerability_packages_matching(p_account uuid, p_pattern text) returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog, public
  rows 200
  as $$
    select p.id from public.vulnerability_packages p
     where p.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.vulnerability_packages')))
       and p.search_text like lower(p_pattern collate "default")
  $$;
`,
};
