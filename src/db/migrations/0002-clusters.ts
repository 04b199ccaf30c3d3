import type { Migration } from '../migrator.js';

/**
 * Clusters and what Kubernetes ingestion stores (docs/kubernetes-ingestion.md): one row per object
 * version, the image digests each version uses, the inventory containers derived from live pods,
 * registries, cluster actions and idempotency records.
 *
 * Every table is account-owned: account_id leads every primary key and index and no foreign key
 * leaves the account (DESIGN.md 8). "live" indexes are partial on the current, undeleted version
 * of each object, which is what lists and the later engines (identities, findings) read.
 * Sortable text columns use the "C" collation: byte order, the same on every server whatever its
 * locale, and cheaper to compare.
 */
export const clusters: Migration = {
  id: '0002-clusters',
  sql: `
create table clusters (
  account_id uuid not null references accounts (id),
  id uuid not null,
  name text collate "C" not null,
  created_at timestamptz not null default now(),
  created_by uuid,
  last_ingested_at timestamptz,
  primary key (account_id, id),
  unique (account_id, name)
);

-- id = <uid>_<resource_version>; uids are only unique within a cluster, hence cluster_id in the key.
create table cluster_resources (
  account_id uuid not null,
  cluster_id uuid not null,
  id text not null,
  uid text not null,
  resource_version text not null,
  kind text collate "C" not null,
  api_version text not null,
  name text collate "C" not null,
  namespace text collate "C" not null default '',
  -- the controller ownerReference (kind and name kept for owner resolution of missing owners)
  owner_uid text,
  owner_kind text,
  owner_name text,
  resource_created_at timestamptz,
  ingested_at timestamptz not null,
  watched_at timestamptz not null,
  deleted_at timestamptz,
  deletion_source text check (deletion_source in ('watch', 'snapshot')),
  version_overwritten_at timestamptz,
  entity_type text not null,
  is_latest boolean not null,
  -- the object's JSON text as pushed (Secrets without values); derived rows hold what is queried
  raw text not null,
  primary key (account_id, cluster_id, id),
  foreign key (account_id, cluster_id) references clusters (account_id, id)
);
create unique index cluster_resources_latest_uid
  on cluster_resources (account_id, cluster_id, uid) where is_latest;
create index cluster_resources_live_name
  on cluster_resources (account_id, name, id) where is_latest and deleted_at is null;
create index cluster_resources_live_kind
  on cluster_resources (account_id, kind, name, id) where is_latest and deleted_at is null;
create index cluster_resources_live_cluster_kind
  on cluster_resources (account_id, cluster_id, kind, name, id) where is_latest and deleted_at is null;
create index cluster_resources_live_namespace
  on cluster_resources (account_id, namespace, name, id) where is_latest and deleted_at is null;
create index cluster_resources_live_owner
  on cluster_resources (account_id, owner_uid, name, id) where is_latest and deleted_at is null;
create index cluster_resources_live_ingested
  on cluster_resources (account_id, ingested_at, id) where is_latest and deleted_at is null;
create index cluster_resources_live_created
  on cluster_resources (account_id, resource_created_at, id) where is_latest and deleted_at is null;
create index cluster_resources_ingested
  on cluster_resources (account_id, ingested_at, id);

-- Image digests a resource version uses (pod spec images pinned by digest, status imageIDs).
create table cluster_resource_images (
  account_id uuid not null,
  image_digest text not null,
  cluster_id uuid not null,
  resource_id text not null,
  primary key (account_id, image_digest, cluster_id, resource_id)
);

-- One row per container of a live pod, replaced whenever the pod's latest version changes.
create table inventory_containers (
  account_id uuid not null,
  id uuid not null,
  cluster_id uuid not null,
  cluster_name text collate "C" not null,
  pod_uid text not null,
  pod_resource_id text not null,
  pod_name text not null,
  pod_namespace text not null,
  -- the pod's own controller reference: where owner resolution starts
  pod_owner_uid text,
  pod_owner_kind text,
  pod_owner_name text,
  name text collate "C" not null,
  container_id text collate "C" not null,
  container_runtime text not null,
  image text not null,
  image_repo text collate "C" not null,
  image_name text collate "C" not null,
  image_tag text collate "C" not null,
  image_digest text collate "C" not null,
  owner_uid text not null,
  owner_kind text collate "C" not null,
  owner_name text collate "C" not null,
  owner_namespace text collate "C" not null,
  owner_resource_version text not null,
  owner_id text not null,
  created_at timestamptz not null,
  primary key (account_id, id)
);
create index inventory_containers_pod on inventory_containers (account_id, cluster_id, pod_uid);
create index inventory_containers_owner on inventory_containers (account_id, cluster_id, owner_uid);
create index inventory_containers_name on inventory_containers (account_id, name, id);
create index inventory_containers_digest on inventory_containers (account_id, image_digest, id);
create index inventory_containers_image_name on inventory_containers (account_id, image_name, id);
create index inventory_containers_image_repo on inventory_containers (account_id, image_repo, id);
create index inventory_containers_owner_name on inventory_containers (account_id, owner_name, id);
create index inventory_containers_owner_namespace on inventory_containers (account_id, owner_namespace, id);
create index inventory_containers_container_id on inventory_containers (account_id, container_id);
create index inventory_containers_created on inventory_containers (account_id, created_at, id);

create table registries (
  account_id uuid not null references accounts (id),
  id uuid not null,
  type text not null check (type in ('cloudA', 'cloudB', 'generic')),
  repository_name text not null,
  cloud_a_account_id text,
  cloud_a_region text,
  cloud_b_location text,
  cloud_b_project_id text,
  cloud_b_project_number text,
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (account_id, id)
);
create unique index registries_identity on registries (
  account_id, type, repository_name, coalesce(cloud_a_account_id, ''), coalesce(cloud_a_region, ''),
  coalesce(cloud_b_project_id, ''), coalesce(cloud_b_location, '')
);
create index registries_created on registries (account_id, created_at, id);

create table cluster_actions (
  account_id uuid not null,
  id uuid not null,
  cluster_id uuid not null,
  action_type text not null check (action_type in ('terminate_pod')),
  status text not null,
  target_namespace text not null,
  target_pod_name text not null,
  parameters jsonb not null,
  result text,
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  primary key (account_id, id),
  foreign key (account_id, cluster_id) references clusters (account_id, id)
);
create index cluster_actions_newest on cluster_actions (account_id, cluster_id, created_at desc, id desc);

-- A retried push with the same Idempotency-Key replays the stored answer (src/ingest/idempotency.ts).
create table idempotency_keys (
  account_id uuid not null,
  key text not null,
  request_hash text not null,
  response jsonb,
  created_at timestamptz not null default now(),
  primary key (account_id, key)
);
create index idempotency_keys_created on idempotency_keys (account_id, created_at);
`,
};
