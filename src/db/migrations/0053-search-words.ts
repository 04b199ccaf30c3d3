import type { Migration } from '../migrator.js';
import { CONTAINER_KEY_COLUMNS } from './0051-search-functions.js';

/**
 * The punctuation `q` is most often written with, and the letter each becomes in a stored search
 * text: an uppercase ASCII letter, which a text lowered by `lower()` never holds. `_`, `%` and `\`
 * are not among them: they are LIKE's own characters, escaped in every pattern.
 */
export const SEARCH_JOINERS = '-./:@+~';
export const SEARCH_JOINER_LETTERS = 'DPSCAXT';

/**
 * The searched fields of each table, as 0029 (containers) and 0042 (packages) joined them: by
 * chr(31), which stays a word break, so that a phrase still cannot match across two fields.
 */
const CONTAINER_FIELDS = `name || chr(31) || image_repo || chr(31) || image_tag || chr(31) || owner_name
    || chr(31) || owner_namespace || chr(31) || pod_name || chr(31) || container_id || chr(31) || cluster_name`;
const PACKAGE_FIELDS = 'name || chr(31) || version';

/**
 * The table's search text rebuilt in the new form, under its own name, with its trigram index and
 * the new column's statistics (until autovacuum's next analyze it would have none).
 */
const searchText = (table: string, fields: string) => `
alter table ${table} drop column search_text;
alter table ${table}
  add column search_text text generated always as (posture_search_words(lower((${fields}) collate "default"))) stored;
create index ${table}_search on ${table} using gin (account_id, search_text gin_trgm_ops);
analyze ${table} (search_text);
`;

/**
 * A search function of 0015, 0042, 0044 or 0051, the same signature and the same rule (SECURITY
 * DEFINER; the account in the caller's scope, the system scope, or a role the policies do not
 * bind), matching the new form of the text with the pattern put in the same form, once. Written
 * out again rather than shared with 0051's: a released migration's SQL must not move when a later
 * one's template changes.
 *
 * The function hands its rows to the caller in a tuplestore that spills to a temporary file past
 * work_mem. At PostgreSQL's default of 4 MB the containers' key rows spilled from a few thousand
 * matches (the large account's `q=svc-12`, 8,888 matches, wrote 3.6 MB on every request); 16 MB
 * holds about 20,000 of them. It is a cap, taken only as the rows come, by each search running at
 * once: ten searches of a process's pool hold at most 160 MB.
 */
const searchFunction = (name: string, returns: string, table: string, selected: string) => `
create or replace function ${name}(p_account uuid, p_pattern text)
  returns ${returns}
  language sql stable security definer
  set search_path = pg_catalog, public
  set work_mem = '16MB'
  rows 200
  as $$
    select ${selected}
      from public.${table} t
     where t.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.${table}')))
       and t.search_text like (select public.posture_search_words(lower(p_pattern collate "default")))
  $$;
`;

/**
 * `q`'s trigram indexes see a phrase's punctuation (docs/performance.md, "Fix 44").
 *
 * pg_trgm makes trigrams of words, and a word is letters and digits only: `q=svc-12` became the
 * words `svc` and `12`, so the index returned every container with a word ending in `svc` and
 * another starting with `12` (`svc-3` in namespace `team-12`, an image digest starting `12`). For
 * the suite's medium account that was 3,571 candidate rows rechecked on the heap, over 1,162 heap
 * pages, for 1,776 matches; `q=team-3` searched the words `team` and `3`, which nearly every
 * container holds.
 *
 * The stored search text now writes each of `-./:@+~` as an uppercase letter (`svc-12` is stored
 * `svcD12`), and a search writes its lowered pattern the same way. The text is lowered first, so
 * those letters stand for nothing else and LIKE answers exactly as before; pg_trgm folds case
 * and sees one word, `svcd12`, whose trigrams span the dash. A text holding the letters as
 * themselves (`svcd12`) shares the trigrams and is a candidate the recheck turns away.
 *
 * Rebuilding a generated column rewrites the table once (PostgreSQL 15 cannot change its
 * expression in place), and the rewritten tables are vacuumed after the commit: their visibility
 * maps start empty, and the list pages' index-only counts would read the heap until autovacuum.
 * `posture_search_words` is part of the stored texts: a new form needs a new function and new
 * columns, never a replaced body. Every search function of the earlier migrations is replaced
 * with the same signature, so a server of an earlier build running beside this schema searches
 * the new texts too.
 */
export const searchWords: Migration = {
  id: '0053-search-words',
  vacuumAfter: ['inventory_containers', 'vulnerability_packages'],
  sql: `
create function posture_search_words(p_lowered text) returns text
  language sql immutable parallel safe
  as $$ select pg_catalog.translate(p_lowered, '${SEARCH_JOINERS}', '${SEARCH_JOINER_LETTERS}') $$;
${searchText('inventory_containers', CONTAINER_FIELDS)}${searchText('vulnerability_packages', PACKAGE_FIELDS)}${searchFunction('inventory_containers_matching', 'setof uuid', 'inventory_containers', 't.id')}${searchFunction('inventory_containers_search', 'setof inventory_containers', 'inventory_containers', 't.*')}${searchFunction(
  'inventory_containers_search_keys',
  'setof inventory_container_search_key',
  'inventory_containers',
  CONTAINER_KEY_COLUMNS.map(([name]) => `t.${name}`).join(', '),
)}${searchFunction('vulnerability_packages_matching', 'setof uuid', 'vulnerability_packages', 't.id')}${searchFunction('vulnerability_packages_search', 'setof vulnerability_packages', 'vulnerability_packages', 't.*')}`,
};
