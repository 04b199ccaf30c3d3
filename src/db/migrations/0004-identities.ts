import type { Migration } from '../migrator.js';

/**
 * Identities and RBAC detail (issue 5; docs/identity-risk.md, docs/identities-api.md). Everything
 * here is derived from cluster_resources by the recompute step that runs inside each Kubernetes
 * ingestion transaction (src/modules/identities/recompute.ts), so reads are indexed lookups.
 *
 * - identities: one row per identity ever seen; list filters and sorts read plain columns and the
 *   identity_facets table, never JSON. rbac_objects (assigned roles, permissions, graph) is stored
 *   per identity so a detail read is one row; the raw Kubernetes objects are not copied: each
 *   identity keeps the ids of the cluster_resources versions it was computed from.
 * - identity_risks: every risk ever detected; a risk that disappears keeps its row with deleted_at.
 * - identity_facets: the multi-valued filters of #14 (resources, actions, open risk types).
 * - identity_filter_values: per cluster, the values #15 offers.
 * - identities_reports: the #18 report, one row per account and hour (the latest is served).
 * - rbac_objects: the live Roles, ClusterRoles and bindings with their effective rules and
 *   resolved subjects, what #19-#22 read.
 *
 * account_id leads every key and index (DESIGN.md 8).
 */
export const identities: Migration = {
  id: '0004-identities',
  sql: `
create table identities (
  account_id uuid not null,
  id uuid not null,
  tenant_id uuid not null,
  cluster_id uuid not null,
  source_name text not null,
  source_type text not null,
  original_id text not null,
  -- byte order ("C"): the same sort on both engines whatever the database's locale
  name text collate "C" not null,
  namespace text collate "C" not null,
  type text collate "C" not null,
  status text not null check (status in ('open', 'resolved')),
  resolved_at timestamptz,
  resolved_reason text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz,
  last_used_at timestamptz,
  last_detected_at timestamptz,
  risk_score double precision not null,
  risk_level text not null,
  risk_types text[] not null,
  actions text[] not null,
  usage text not null,
  is_system boolean not null,
  linked_resources integer not null,
  rightsizeable boolean not null,
  risk_detectors jsonb not null,
  risks_summary jsonb not null,
  rbac_objects jsonb not null,
  raw_record_ids text[] not null,
  content_hash text not null,
  primary key (account_id, id),
  foreign key (account_id, cluster_id) references clusters (account_id, id)
);
create index identities_cluster on identities (account_id, cluster_id, id);
create index identities_risk_score on identities (account_id, risk_score, id);
create index identities_name on identities (account_id, name, id);
create index identities_created on identities (account_id, created_at, id);
create index identities_updated on identities (account_id, updated_at, id);
create index identities_last_used on identities (account_id, last_used_at, id);
create index identities_last_detected on identities (account_id, last_detected_at, id);

create table identity_risks (
  account_id uuid not null,
  identity_id uuid not null,
  id uuid not null,
  cluster_id uuid not null,
  fingerprint text not null,
  type text not null,
  name text not null,
  description text not null,
  weight double precision not null,
  score double precision not null,
  severity text not null,
  namespace text not null,
  associated_resources jsonb not null,
  risk_counter integer not null,
  first_detected_at timestamptz not null,
  last_detected_at timestamptz not null,
  deleted_at timestamptz,
  content_hash text not null,
  primary key (account_id, identity_id, id)
);
create index identity_risks_cluster on identity_risks (account_id, cluster_id, identity_id);
create index identity_risks_type on identity_risks (account_id, identity_id, type, id);

-- facet: 'resource' | 'action' | 'risk' (open risk types)
create table identity_facets (
  account_id uuid not null,
  identity_id uuid not null,
  facet text not null,
  value text not null,
  primary key (account_id, identity_id, facet, value)
);
create index identity_facets_value on identity_facets (account_id, facet, value, identity_id);

create table identity_filter_values (
  account_id uuid not null,
  cluster_id uuid not null,
  facet text not null,
  value text not null,
  label text not null,
  primary key (account_id, cluster_id, facet, value)
);

create table identities_reports (
  account_id uuid not null,
  id uuid not null,
  created_at timestamptz not null,
  year integer not null,
  month integer not null,
  day integer not null,
  hour integer not null,
  body jsonb not null,
  primary key (account_id, id),
  unique (account_id, year, month, day, hour)
);
create index identities_reports_latest on identities_reports (account_id, created_at, id);

create table rbac_objects (
  account_id uuid not null,
  cluster_id uuid not null,
  uid text not null,
  object_id uuid not null,
  kind text not null check (kind in ('Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding')),
  namespace text not null,
  name text not null,
  resource_version text not null,
  record_id text not null,
  created_at timestamptz,
  updated_at timestamptz not null,
  role_ref_kind text,
  role_ref_name text,
  role_ref_api_group text,
  -- bindings: [{kind, name, namespace, api_group, identity_id}]
  subjects jsonb,
  -- roles: effective rules, aggregated components included: [{rule, sources}]
  rules jsonb,
  -- aggregated ClusterRoles: names of the component ClusterRoles
  components jsonb,
  content_hash text not null,
  primary key (account_id, cluster_id, uid),
  foreign key (account_id, cluster_id) references clusters (account_id, id)
);
create index rbac_objects_uid on rbac_objects (account_id, uid);
create index rbac_objects_object on rbac_objects (account_id, cluster_id, object_id);
create index rbac_objects_role_ref
  on rbac_objects (account_id, cluster_id, role_ref_kind, role_ref_name) where role_ref_kind is not null;
`,
};
