import type { Migration } from '../migrator.js';

/**
 * List pages that cost the page, not the account (issue 9, docs/performance.md "Fix 4").
 *
 * - Deep pages: every offered sort of inventory containers and live resources has an index on
 *   (account_id, <sort column>, id[, cluster_id]), so the repositories' deferred join (an inner
 *   select of the page's keys, then the rows by primary key) reads the index in order and never
 *   sorts the account's rows. The live resources indexes gain cluster_id as their last key: the
 *   primary key is (account_id, cluster_id, id), so the inner select needs it, and as a key it
 *   also settles the order of the same id in two clusters (the list's last tie-breaker).
 * - `q` on inventory containers: one trigram index over the searched fields joined by chr(31), a
 *   character no search string reaches (the service searches the old per-field way when `q`
 *   holds it), so a phrase cannot match across two fields. btree_gin puts account_id first in
 *   that index, like in every other index. The text is collated "default" (most of the columns
 *   are "C", which folds ASCII letters only): case is folded as the database's lower() folds it,
 *   accented letters included (docs/api-conventions.md, "q"), as pg_trgm folds its trigrams.
 * - ILIKE is not leakproof, so under row-level security (the application's role) the planner may
 *   not use it as an index condition: the trigram index would never be read. The search therefore
 *   runs in inventory_containers_matching(), a SECURITY DEFINER function of the owner, which applies
 *   the same rule the policies of 0011 do (the scope's accounts, or the system scope; a role the
 *   policies do not bind, a superuser, BYPASSRLS or the owner, as on PGlite, sees every account).
 */
export const listPages: Migration = {
  id: '0015-list-pages',
  sql: `
create extension if not exists pg_trgm;
create extension if not exists btree_gin;

create index inventory_containers_cluster_name on inventory_containers (account_id, cluster_name, id);
create index inventory_containers_image_tag on inventory_containers (account_id, image_tag, id);
create index inventory_containers_owner_kind on inventory_containers (account_id, owner_kind, id);
drop index inventory_containers_container_id;
create index inventory_containers_container_id on inventory_containers (account_id, container_id, id);

create index inventory_containers_search on inventory_containers using gin (
  account_id,
  ((name || chr(31) || image_repo || chr(31) || image_tag || chr(31) || owner_name || chr(31) || owner_namespace
    || chr(31) || pod_name || chr(31) || container_id || chr(31) || cluster_name) collate "default") gin_trgm_ops
);

-- true when row-level security does not bind the connected role (see above)
create function posture_session_unbound(tbl regclass) returns boolean
  language sql stable
  set search_path = pg_catalog
  as $$
    select r.rolsuper or r.rolbypassrls or pg_has_role(session_user, c.relowner, 'USAGE')
      from pg_roles r, pg_class c
     where r.rolname = session_user and c.oid = tbl
  $$;

-- ids of the account's containers whose searched fields contain p_pattern (an ILIKE pattern)
create function inventory_containers_matching(p_account uuid, p_pattern text) returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog, public
  rows 200
  as $$
    select c.id from public.inventory_containers c
     where c.account_id = p_account
       and (p_account = any ((select public.posture_scope_account_ids())::uuid[])
            or (select public.posture_scope_system())
            or (select public.posture_session_unbound('public.inventory_containers')))
       and ((c.name || chr(31) || c.image_repo || chr(31) || c.image_tag || chr(31) || c.owner_name || chr(31)
             || c.owner_namespace || chr(31) || c.pod_name || chr(31) || c.container_id || chr(31) || c.cluster_name)
            collate "default") ilike p_pattern
  $$;

drop index cluster_resources_live_name;
create index cluster_resources_live_name
  on cluster_resources (account_id, name, id, cluster_id) where is_latest and deleted_at is null;
drop index cluster_resources_live_kind;
create index cluster_resources_live_kind
  on cluster_resources (account_id, kind, name, id, cluster_id) where is_latest and deleted_at is null;
drop index cluster_resources_live_namespace;
create index cluster_resources_live_namespace
  on cluster_resources (account_id, namespace, name, id, cluster_id) where is_latest and deleted_at is null;
drop index cluster_resources_live_ingested;
create index cluster_resources_live_ingested
  on cluster_resources (account_id, ingested_at, id, cluster_id) where is_latest and deleted_at is null;
drop index cluster_resources_live_created;
create index cluster_resources_live_created
  on cluster_resources (account_id, resource_created_at, id, cluster_id) where is_latest and deleted_at is null;
`,
};
