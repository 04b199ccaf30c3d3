import type { Migration } from '../migrator.js';

/**
 * `q` on inventory containers reads a narrow table of their search texts, and a search in the
 * list's default order reads no container but its page's (docs/performance.md, "Fix 62").
 *
 * The trigram index sat on `inventory_containers` itself, whose rows are about 1.5 KB on their
 * pages (fillfactor 50, 26 columns): for the large benchmark account's `q=svc-12` (8,888 matches
 * of 228,136 containers) the recheck of the index's 14,662 candidates read 4,119 pages of a 405 MB
 * table, most of a search's 22 ms, and the page then read every match again, by address, to sort
 * and count them. From a table of the searched text alone (56 MB) the same search took 12 to 15
 * ms, and the matches' ids in name order 14.
 *
 * - `inventory_container_search_texts` holds one row per container: its id, its name (the list's
 *   default order, collated as the container's) and its search text, copied from the container's
 *   generated column (0053). The trigram index moves here: a container update that is not
 *   heap-only (a new pod, an owner resolved again) no longer adds every trigram of the row's text
 *   to the index, only a text that changed does.
 * - Triggers keep it: the rows a statement inserted or deleted, by their transition tables, and a
 *   row whose text or name an update changed, by a row trigger whose condition is false for the
 *   updates that change neither (the pods' new versions: `pod_resource_id` alone).
 * - `inventory_container_search_ids(account, pattern)`, an owner's function (SECURITY DEFINER)
 *   with the rule of 0044, 0057 and 0060, returns the matches' ids as one array in the list's name
 *   order: a page in that order is a slice of it, and its total the array's length.
 * - 0057's `inventory_containers_search_tids` now finds its rows through the new function, for a
 *   server of the previous build running beside this schema. The functions before 0057 read the
 *   column without its index, a scan of the account: no server since 0057 calls them.
 *
 * The triggers come before the copy of the existing texts: creating them locks the containers
 * against writes to the commit, so no row can be written between the copy and the triggers. Every
 * statement may run again.
 */
export const containerSearchTexts: Migration = {
  id: '0061-container-search-texts',
  sql: `
create table if not exists inventory_container_search_texts (
  account_id uuid not null,
  container_id uuid not null,
  name text collate "C" not null,
  search_text text not null,
  primary key (account_id, container_id)
);
create index if not exists inventory_container_search_texts_search
  on inventory_container_search_texts using gin (account_id, search_text gin_trgm_ops);

create or replace function inventory_container_search_texts_inserted() returns trigger
  language plpgsql
  set search_path = pg_catalog, public
  as $fn$
begin
  insert into public.inventory_container_search_texts as s (account_id, container_id, name, search_text)
  select account_id, id, name, search_text from new_rows
  on conflict (account_id, container_id)
    do update set name = excluded.name, search_text = excluded.search_text;
  return null;
end
$fn$;

create or replace function inventory_container_search_texts_deleted() returns trigger
  language plpgsql
  set search_path = pg_catalog, public
  as $fn$
begin
  delete from public.inventory_container_search_texts s
   using old_rows o
   where s.account_id = o.account_id and s.container_id = o.id;
  return null;
end
$fn$;

create or replace function inventory_container_search_text_updated() returns trigger
  language plpgsql
  set search_path = pg_catalog, public
  as $fn$
begin
  update public.inventory_container_search_texts
     set name = new.name, search_text = new.search_text
   where account_id = new.account_id and container_id = new.id;
  return null;
end
$fn$;

drop trigger if exists search_texts_inserted on inventory_containers;
create trigger search_texts_inserted after insert on inventory_containers
  referencing new table as new_rows
  for each statement execute function inventory_container_search_texts_inserted();
drop trigger if exists search_texts_deleted on inventory_containers;
create trigger search_texts_deleted after delete on inventory_containers
  referencing old table as old_rows
  for each statement execute function inventory_container_search_texts_deleted();
drop trigger if exists search_text_updated on inventory_containers;
create trigger search_text_updated after update on inventory_containers
  for each row
  when (old.search_text is distinct from new.search_text or old.name is distinct from new.name)
  execute function inventory_container_search_text_updated();

insert into inventory_container_search_texts (account_id, container_id, name, search_text)
select account_id, id, name, search_text from inventory_containers
on conflict do nothing;
analyze inventory_container_search_texts;

create or replace function inventory_container_search_ids(p_account uuid, p_pattern text)
  returns uuid[]
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select coalesce(array_agg(s.container_id order by s.name, s.container_id), '{}')
      from public.inventory_container_search_texts s
     where s.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.inventory_container_search_texts')))
       and s.search_text like (select public.posture_search_words(lower(p_pattern collate "default")))
  $$;

create or replace function inventory_containers_search_tids(p_account uuid, p_pattern text)
  returns tid[]
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select coalesce(array_agg(c.ctid), '{}')
      from public.inventory_containers c
     where c.account_id = p_account
       and c.id = any ((select public.inventory_container_search_ids(p_account, p_pattern))::uuid[])
  $$;

drop index if exists inventory_containers_search;
`,
};
