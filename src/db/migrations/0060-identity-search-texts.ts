import type { Migration } from '../migrator.js';

/**
 * `q` on the identities list through a trigram index, as on inventory containers and packages
 * (docs/performance.md, "Fix 61").
 *
 * The list matched `name ilike '%phrase%' or namespace ilike '%phrase%'`, which no btree serves:
 * its `total_count` tested every identity of the account, from the name index since 0052. At the
 * large benchmark size that was 20,470 index entries for 2,222 matches of `q=sa-1`, 16 ms a count,
 * and the searched page's cost grew with the account (2.8 times from small to large).
 *
 * The searched text lives in a table of its own, `identity_search_texts`, one row per identity,
 * written once when the identity is. Kept in `identities` (as a generated column, like the
 * containers' text) it would add a trigram index entry per trigram to every identity write: the
 * recompute rewrites thousands of identities per Kubernetes push, and an identity's name and
 * namespace never change (both are part of its id, engines/rbac/identities.ts).
 *
 * - The text is the name and the namespace, lowered and put in the search words' form of 0053,
 *   joined by chr(31), which stays a word break: a phrase cannot match across the two.
 * - A statement-level trigger on identities writes the texts of the rows a statement inserted (its
 *   transition table holds the inserted rows only, not those an upsert updated). Identities are
 *   never deleted by the service; a deleted account's go with it, and their texts by the foreign
 *   key's cascade.
 * - `identity_search_ids(account, pattern)`, an owner's function (SECURITY DEFINER), reads the
 *   trigram index under row-level security with the rule of 0044 and 0057, and returns the ids of
 *   the matching identities as one array.
 *
 * Every statement may run again: the backfill writes only the texts still missing.
 */
export const identitySearchTexts: Migration = {
  id: '0060-identity-search-texts',
  sql: `
create table if not exists identity_search_texts (
  account_id uuid not null,
  identity_id uuid not null,
  search_text text not null,
  primary key (account_id, identity_id),
  foreign key (account_id, identity_id) references identities (account_id, id) on delete cascade
);
create index if not exists identity_search_texts_search
  on identity_search_texts using gin (account_id, search_text gin_trgm_ops);

create or replace function identity_search_text(p_name text, p_namespace text) returns text
  language sql immutable parallel safe
  set search_path = pg_catalog, public
  as $$ select public.posture_search_words(lower((p_name || chr(31) || p_namespace) collate "default")) $$;

create or replace function identity_search_texts_of_inserted() returns trigger
  language plpgsql
  set search_path = pg_catalog, public
  as $fn$
begin
  insert into public.identity_search_texts (account_id, identity_id, search_text)
  select account_id, id, public.identity_search_text(name, namespace) from inserted
  on conflict do nothing;
  return null;
end
$fn$;

drop trigger if exists identity_search_texts on identities;
create trigger identity_search_texts after insert on identities
  referencing new table as inserted
  for each statement execute function identity_search_texts_of_inserted();

insert into identity_search_texts (account_id, identity_id, search_text)
select account_id, id, identity_search_text(name, namespace) from identities
on conflict do nothing;
analyze identity_search_texts;

create or replace function identity_search_ids(p_account uuid, p_pattern text)
  returns uuid[]
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select coalesce(array_agg(s.identity_id), '{}')
      from public.identity_search_texts s
     where s.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.identity_search_texts')))
       and s.search_text like (select public.posture_search_words(lower(p_pattern collate "default")))
  $$;
`,
};
