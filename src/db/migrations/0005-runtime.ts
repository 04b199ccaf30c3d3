import type { Migration } from '../migrator.js';

/**
 * What runtime ingestion stores (docs/runtime-api.md): per-account runtime settings, the engine's
 * state per workload container, the container instances each workload container was seen in,
 * learned baselines, runtime insights and HTTP request observations.
 *
 * Every table is account-owned: account_id leads every primary key and index (DESIGN.md 8). The
 * derived rows (baselines, insights, observations) are written in the transaction of the push
 * whose events produced them, so reads are indexed lookups.
 */
export const runtime: Migration = {
  id: '0005-runtime',
  sql: `
create table runtime_settings (
  account_id uuid not null references accounts (id),
  learning_window_seconds integer not null check (learning_window_seconds > 0),
  learning_window_max_events integer check (learning_window_max_events > 0),
  -- [{cidr, name, description?}], validated when written
  trusted_ip_prefixes jsonb not null default '[]',
  updated_at timestamptz not null default now(),
  updated_by uuid,
  primary key (account_id)
);

-- One row per workload container (cluster, namespace, workload kind and name, container name).
-- state is the engine's WorkloadContainerState as JSON text: read and written whole, never queried.
create table runtime_workloads (
  account_id uuid not null,
  id uuid not null,
  cluster_id uuid not null,
  workload_key text not null,
  namespace text not null,
  workload_kind text not null,
  workload_name text not null,
  container_name text not null,
  baseline_captured_at timestamptz,
  first_event_at timestamptz not null,
  last_event_at timestamptz not null,
  state text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (account_id, id),
  foreign key (account_id, cluster_id) references clusters (account_id, id)
);

-- Every container instance (replica, restart) a workload container's events came from, by the id
-- the inventory uses (no runtime scheme), so an inventory container finds its insight.
create table runtime_container_instances (
  account_id uuid not null,
  container_id text not null,
  workload_id uuid not null,
  cluster_id uuid not null,
  pod_name text not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  primary key (account_id, container_id, workload_id)
);
create index runtime_container_instances_workload on runtime_container_instances (account_id, workload_id);

-- The captured baseline of a workload container (one per workload; a reset would replace it).
create table runtime_baselines (
  account_id uuid not null,
  id uuid not null,
  workload_id uuid not null,
  cluster_id uuid not null,
  namespace text not null,
  workload_kind text not null,
  workload_name text not null,
  container_name text not null,
  container_id text not null,
  image_name text not null,
  notes text not null,
  fingerprint jsonb not null,
  -- the capture time (event time), as the fingerprint's metadata.creationTimestamp
  created_at timestamptz not null,
  created_by text not null,
  primary key (account_id, id)
);
create unique index runtime_baselines_workload on runtime_baselines (account_id, workload_id);
create index runtime_baselines_created on runtime_baselines (account_id, created_at, id);
create index runtime_baselines_cluster on runtime_baselines (account_id, cluster_id, created_at, id);
create index runtime_baselines_image on runtime_baselines (account_id, image_name, id);
create index runtime_baselines_workload_name on runtime_baselines (account_id, workload_name, id);

-- One insight per workload container that drifted or raised an alert. The fingerprints are
-- rendered from the workload's state when one insight is read; lists read these columns only.
create table runtime_insights (
  account_id uuid not null,
  id uuid not null,
  workload_id uuid not null,
  cluster_id uuid not null,
  baseline_id uuid,
  container_id text not null,
  namespace text not null,
  workload_kind text not null,
  workload_name text not null,
  container_name text not null,
  severity text not null,
  severity_rank smallint not null,
  state text not null,
  has_drift boolean not null,
  malicious boolean not null,
  baseline_captured boolean not null,
  -- container_meta and kube_meta of the description's summary
  summary jsonb not null,
  analysis jsonb not null,
  llm_analysis jsonb,
  -- what the analysis was computed from (signals, severity, verdict): a new LLM analysis is asked
  -- for only when it changes, and a late answer for an older digest is dropped
  analysis_digest text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (account_id, id)
);
create unique index runtime_insights_workload on runtime_insights (account_id, workload_id);
create index runtime_insights_updated on runtime_insights (account_id, updated_at, id);
create index runtime_insights_created on runtime_insights (account_id, created_at, id);
create index runtime_insights_severity on runtime_insights (account_id, severity_rank, id);
create index runtime_insights_cluster on runtime_insights (account_id, cluster_id, updated_at, id);
create index runtime_insights_container on runtime_insights (account_id, container_id);

-- HTTP requests aggregated per cluster, source workload, destination, scheme, method and path
-- template; id is derived from that key. Paths are templates: matched personal data is never stored.
create table runtime_http_observations (
  account_id uuid not null,
  id uuid not null,
  cluster_id uuid not null,
  app_protocol text not null,
  method text not null,
  scheme text not null,
  path text not null,
  source_workload_kind text not null,
  source_workload_name text not null,
  source_workload_namespace text not null,
  destination_addr text not null,
  destination_port integer not null,
  destination_hostname text not null,
  destination_service_name text not null,
  destination_service_namespace text not null,
  destination_workload_kind text not null,
  destination_workload_name text not null,
  destination_workload_namespace text not null,
  has_pii boolean not null,
  pii_labels text[] not null,
  trusted_ip boolean not null,
  trusted_ip_prefix text not null,
  trusted_ip_description text not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  request_count bigint not null,
  primary key (account_id, id)
);
create index runtime_http_observations_seen on runtime_http_observations (account_id, last_seen_at, id);
create index runtime_http_observations_cluster
  on runtime_http_observations (account_id, cluster_id, last_seen_at, id);
create index runtime_http_observations_pii
  on runtime_http_observations (account_id, last_seen_at, id) where has_pii;
`,
};
