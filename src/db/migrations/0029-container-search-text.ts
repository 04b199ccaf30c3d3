import type { Migration } from '../migrator.js';

/**
 * `q` on inventory containers without folding case at every search (docs/performance.md,
 * "Fix 17b").
 *
 * The trigram index of 0015 finds candidate rows, and PostgreSQL then checks each candidate's
 * searched text with ILIKE. In a UTF-8 database ILIKE lowers both the text and the pattern on
 * every call (like.c: `lower()` of each, then a case-sensitive match): about 5 µs for a
 * container's searched text, against 0.3 µs for the match itself. A medium account's `q=svc-12`
 * rechecked 3,571 candidates, so folding case was most of its 13 to 17 ms, and the list pays it
 * twice (its page and its count).
 *
 * The searched text is now stored lowered, in a generated column that PostgreSQL keeps as the
 * fields change, and the search matches it with LIKE against the pattern lowered once. Since
 * ILIKE is by definition lower(text) LIKE lower(pattern) in the same collation, the answers are
 * the same; the "default" collation is the one 0015 searched with. The trigram index moves to the
 * column. The function keeps its signature and its row-level security rule (see 0015).
 *
 * Adding a stored column rewrites the table once; its rows take about 200 bytes more.
 */
const SEARCHED = `name || chr(31) || image_repo || chr(31) || image_tag || chr(31) || owner_name || chr(31)
    || owner_namespace || chr(31) || pod_name || chr(31) || container_id || chr(31) || cluster_name`;

export const containerSearchText: Migration = {
  id: '0029-container-search-text',
  sql: `
alter table inventory_containers
  add column search_text text generated always as (lower((${SEARCHED}) collate "default")) stored;

drop index inventory_containers_search;
create index inventory_containers_search on inventory_containers using gin (account_id, search_text gin_trgm_ops);

create or replace function inventory_containers_matching(p_account uuid, p_pattern text) returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog, public
  rows 200
  as $$
    select c.id from public.inventory_containers c
     where c.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.inventory_containers')))
       and c.search_text like lower(p_pattern collate "default")
  $$;
`,
};
