import type { Migration } from '../migrator.js';

/**
 * Findings and finding groups (issue 7; docs/findings.md). Both are derived rows: the findings
 * evaluation (src/modules/findings/evaluate.ts) writes them inside the transaction of the push
 * that changed what they derive from, so the lists read indexed columns only.
 *
 * - finding_groups: one row per rule and source object of a cluster (`group_key`), with its
 *   lifecycle: first/last seen, status (open, closed, ignored) and who changed it when.
 * - findings: one row per fingerprint (rule, source object, detail such as a container or a
 *   CVE). A finding that stops holding keeps its row with deleted_at; one that holds again is the
 *   same row with deleted_at cleared. `family` and `source_key` say which evaluation owns the row,
 *   so an evaluation loads exactly the stored findings it may confirm or delete.
 *
 * account_id leads every key and index (DESIGN.md 8).
 */
export const findings: Migration = {
  id: '0007-findings',
  sql: `
create table finding_groups (
  account_id uuid not null,
  id uuid not null,
  tenant_id uuid not null,
  cluster_id uuid not null,
  -- stable identity of the group: hash of cluster, rule and source object (the API's group_id)
  group_key text not null,
  type text collate "C" not null,
  rule_id text collate "C" not null,
  rule_title text not null,
  severity text collate "C" not null
    check (severity in ('negligible', 'low', 'medium', 'high', 'critical')),
  severity_int smallint not null,
  source_kind text collate "C" not null,
  source_type text collate "C" not null,
  source_id text not null,
  source_name text not null,
  source_namespace text collate "C" not null,
  rule_attrs jsonb not null,
  source_attrs jsonb not null,
  status text collate "C" not null check (status in ('open', 'closed', 'ignored')),
  status_changed_at timestamptz not null,
  -- the user who set the status; null when the evaluation did
  status_changed_by uuid,
  first_seen timestamptz not null,
  last_seen timestamptz not null,
  event_timestamp timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (account_id, id),
  unique (account_id, cluster_id, group_key),
  foreign key (account_id, cluster_id) references clusters (account_id, id)
);
-- The list order (newest last_seen first, then id), alone and under each filter key.
create index finding_groups_last_seen on finding_groups (account_id, last_seen, id);
create index finding_groups_status on finding_groups (account_id, status, last_seen, id);
create index finding_groups_severity on finding_groups (account_id, severity, last_seen, id);
create index finding_groups_type on finding_groups (account_id, type, last_seen, id);
create index finding_groups_rule on finding_groups (account_id, rule_id, last_seen, id);
create index finding_groups_namespace on finding_groups (account_id, source_namespace, last_seen, id);
create index finding_groups_source_kind on finding_groups (account_id, source_kind, last_seen, id);
create index finding_groups_source_type on finding_groups (account_id, source_type, last_seen, id);

create table findings (
  account_id uuid not null,
  id uuid not null,
  group_id uuid not null,
  tenant_id uuid not null,
  cluster_id uuid not null,
  fingerprint text not null,
  -- misconfiguration | identity | vulnerability | runtime: the evaluation that owns the row
  family text not null,
  -- what that evaluation is scoped by: the object uid for misconfigurations, else the cluster
  source_key text not null,
  type text not null,
  rule_id text not null,
  rule_title text not null,
  severity text not null,
  severity_int smallint not null,
  source_kind text not null,
  source_type text not null,
  source_id text not null,
  source_name text not null,
  source_namespace text not null,
  source_owner_id text not null,
  source_actor text not null,
  owner_id text not null,
  messages jsonb not null,
  fix_attrs jsonb not null,
  rule_attrs jsonb not null,
  source_attrs jsonb not null,
  tags jsonb not null,
  -- hash of what the API shows of the finding: a confirmed finding is rewritten only when it changed
  content_hash text not null,
  event_timestamp timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz,
  primary key (account_id, id),
  unique (account_id, fingerprint),
  foreign key (account_id, group_id) references finding_groups (account_id, id)
);
create index findings_scope
  on findings (account_id, cluster_id, family, source_key) where deleted_at is null;
create index findings_group on findings (account_id, group_id, updated_at, id);
create index findings_group_live on findings (account_id, group_id) where deleted_at is null;
`,
};
