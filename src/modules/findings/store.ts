/**
 * The writes of a findings evaluation, all inside the caller's transaction and all scoped by
 * account (and cluster) in their WHERE clauses. Rows travel as JSON array parameters
 * (jsonb_to_recordset), so a push's findings are a handful of statements whatever their number.
 */
import type { Executor } from '../../db/database.js';

export interface EvaluationScope {
  accountId: string;
  clusterId: string;
  family: string;
  /** source_key values the evaluation covers: object uids, or the cluster id */
  sourceKeys: readonly string[];
}

export interface StoredFinding {
  id: string;
  fingerprint: string;
  group_id: string;
  content_hash: string;
}

export interface StoredGroup {
  id: string;
  group_key: string;
  status: 'open' | 'closed' | 'ignored';
  first_seen: Date;
}

/** The live findings the evaluation may confirm or delete. */
export async function loadLiveFindings(db: Executor, scope: EvaluationScope): Promise<StoredFinding[]> {
  if (scope.sourceKeys.length === 0) return [];
  const { rows } = await db.query<StoredFinding>(
    `select id, fingerprint, group_id, content_hash from findings
      where account_id = $1 and cluster_id = $2 and family = $3 and source_key = any($4::text[])
        and deleted_at is null`,
    [scope.accountId, scope.clusterId, scope.family, scope.sourceKeys],
  );
  return rows;
}

export async function findGroups(
  db: Executor,
  scope: { accountId: string; clusterId: string },
  keys: readonly string[],
): Promise<StoredGroup[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.query<StoredGroup>(
    `select id, group_key, status, first_seen from finding_groups
      where account_id = $1 and cluster_id = $2 and group_key = any($3::text[])`,
    [scope.accountId, scope.clusterId, keys],
  );
  return rows;
}

/** A group as the evaluation computes it (status fields are the store's business). */
export interface GroupRow {
  id: string;
  group_key: string;
  type: string;
  rule_id: string;
  rule_title: string;
  severity: string;
  severity_int: number;
  source_kind: string;
  source_type: string;
  source_id: string;
  source_name: string;
  source_namespace: string;
  rule_attrs: Record<string, unknown>;
  source_attrs: Record<string, unknown>;
}

const GROUP_FIELDS = `id uuid, group_key text, type text, rule_id text, rule_title text, severity text,
  severity_int smallint, source_kind text, source_type text, source_id text, source_name text,
  source_namespace text, rule_attrs jsonb, source_attrs jsonb`;

/**
 * Inserts new groups (open) and refreshes the known ones: last_seen moves to `at` and the
 * descriptive columns follow the latest evaluation. Status is left alone here.
 */
export async function upsertGroups(
  db: Executor,
  scope: { accountId: string; clusterId: string; tenantId: string },
  groups: readonly GroupRow[],
  at: Date,
): Promise<void> {
  if (groups.length === 0) return;
  await db.query(
    `insert into finding_groups (account_id, id, tenant_id, cluster_id, group_key, type, rule_id, rule_title,
       severity, severity_int, source_kind, source_type, source_id, source_name, source_namespace, rule_attrs,
       source_attrs, status, status_changed_at, first_seen, last_seen, event_timestamp, created_at, updated_at)
     select $1, v.id, $2, $3, v.group_key, v.type, v.rule_id, v.rule_title, v.severity, v.severity_int,
            v.source_kind, v.source_type, v.source_id, v.source_name, v.source_namespace, v.rule_attrs,
            v.source_attrs, 'open', $5, $5, $5, $5, $5, $5
       from jsonb_to_recordset($4::jsonb) as v (${GROUP_FIELDS})
     on conflict (account_id, cluster_id, group_key) do update set
       rule_title = excluded.rule_title, severity = excluded.severity, severity_int = excluded.severity_int,
       source_name = excluded.source_name, source_namespace = excluded.source_namespace,
       rule_attrs = excluded.rule_attrs, source_attrs = excluded.source_attrs,
       last_seen = excluded.last_seen, event_timestamp = excluded.event_timestamp,
       updated_at = excluded.updated_at`,
    [scope.accountId, scope.tenantId, scope.clusterId, JSON.stringify(groups), at],
  );
}

export interface FindingRow {
  id: string;
  group_id: string;
  fingerprint: string;
  source_key: string;
  type: string;
  rule_id: string;
  rule_title: string;
  severity: string;
  severity_int: number;
  source_kind: string;
  source_type: string;
  source_id: string;
  source_name: string;
  source_namespace: string;
  messages: string[];
  fix_attrs: Record<string, unknown>;
  rule_attrs: Record<string, unknown>;
  source_attrs: Record<string, unknown>;
  content_hash: string;
}

/** A finding's own columns; `shape` points into its statement's shapes (below). */
const FINDING_FIELDS = `id uuid, group_id uuid, fingerprint text, source_key text, messages jsonb, fix_attrs jsonb,
  rule_attrs jsonb, content_hash text, shape integer`;

/** The columns a finding shares with the others of its rule and source: its rule and its source. */
const SHAPE_FIELDS = `shape integer, type text, rule_id text, rule_title text, severity text, severity_int smallint,
  source_kind text, source_type text, source_id text, source_name text, source_namespace text, source_attrs jsonb`;

type Shape = Pick<
  FindingRow,
  | 'type'
  | 'rule_id'
  | 'rule_title'
  | 'severity'
  | 'severity_int'
  | 'source_kind'
  | 'source_type'
  | 'source_id'
  | 'source_name'
  | 'source_namespace'
  | 'source_attrs'
>;

/**
 * The rows as the statement reads them: each distinct rule-and-source part once, and per finding
 * its own columns and the index of its part. An evaluation's findings mostly share a handful of
 * rules and sources (every finding of a scanned image names the same image), and writing those
 * columns into every row made the JSON a push sends half again as large: a medium scan push
 * sent 270 KB of findings JSON, most of its bytes (docs/performance.md, "Fix 17c").
 */
function findingsPayload(findings: readonly FindingRow[]) {
  const shapes: Array<Shape & { shape: number }> = [];
  const shapeIndex = new Map<string, number>();
  const rows = findings.map((row) => {
    const key = [
      row.type,
      row.rule_id,
      row.rule_title,
      row.severity,
      row.severity_int,
      row.source_kind,
      row.source_type,
      row.source_id,
      row.source_name,
      row.source_namespace,
      JSON.stringify(row.source_attrs),
    ].join('\u0000');
    let shape = shapeIndex.get(key);
    if (shape === undefined) {
      shape = shapes.length;
      shapeIndex.set(key, shape);
      shapes.push({
        shape,
        type: row.type,
        rule_id: row.rule_id,
        rule_title: row.rule_title,
        severity: row.severity,
        severity_int: row.severity_int,
        source_kind: row.source_kind,
        source_type: row.source_type,
        source_id: row.source_id,
        source_name: row.source_name,
        source_namespace: row.source_namespace,
        source_attrs: row.source_attrs,
      });
    }
    return {
      id: row.id,
      group_id: row.group_id,
      fingerprint: row.fingerprint,
      source_key: row.source_key,
      messages: row.messages,
      fix_attrs: row.fix_attrs,
      rule_attrs: row.rule_attrs,
      content_hash: row.content_hash,
      shape,
    };
  });
  return { rows: JSON.stringify(rows), shapes: JSON.stringify(shapes) };
}

/**
 * Writes findings that are new, returning, or changed. A returning fingerprint is its old row,
 * revived (deleted_at cleared, created_at kept).
 */
export async function upsertFindings(
  db: Executor,
  scope: { accountId: string; clusterId: string; tenantId: string; family: string },
  findings: readonly FindingRow[],
  at: Date,
): Promise<void> {
  if (findings.length === 0) return;
  const payload = findingsPayload(findings);
  await db.query(
    `insert into findings (account_id, id, group_id, tenant_id, cluster_id, fingerprint, family, source_key, type,
       rule_id, rule_title, severity, severity_int, source_kind, source_type, source_id, source_name,
       source_namespace, source_owner_id, source_actor, owner_id, messages, fix_attrs, rule_attrs, source_attrs,
       tags, content_hash, event_timestamp, created_at, updated_at)
     select $1, v.id, v.group_id, $2, $3, v.fingerprint, $4, v.source_key, s.type, s.rule_id, s.rule_title,
            s.severity, s.severity_int, s.source_kind, s.source_type, s.source_id, s.source_name,
            s.source_namespace, '', '', '', v.messages, v.fix_attrs, v.rule_attrs, s.source_attrs,
            jsonb_build_object('family', $4::text), v.content_hash, $6, $6, $6
       from jsonb_to_recordset($5::jsonb) as v (${FINDING_FIELDS})
       join jsonb_to_recordset($7::jsonb) as s (${SHAPE_FIELDS}) on s.shape = v.shape
     on conflict (account_id, fingerprint) do update set
       group_id = excluded.group_id, source_key = excluded.source_key, rule_title = excluded.rule_title,
       severity = excluded.severity, severity_int = excluded.severity_int, source_name = excluded.source_name,
       source_namespace = excluded.source_namespace, messages = excluded.messages,
       fix_attrs = excluded.fix_attrs, rule_attrs = excluded.rule_attrs, source_attrs = excluded.source_attrs,
       content_hash = excluded.content_hash, event_timestamp = excluded.event_timestamp,
       updated_at = excluded.updated_at, deleted_at = null`,
    [scope.accountId, scope.tenantId, scope.clusterId, scope.family, payload.rows, at, payload.shapes],
  );
}

/** Marks findings that no longer hold. */
export async function deleteFindings(
  db: Executor,
  accountId: string,
  ids: readonly string[],
  at: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `update findings set deleted_at = $3, updated_at = $3
      where account_id = $1 and id = any($2::uuid[]) and deleted_at is null`,
    [accountId, ids, at],
  );
}

/** Closed groups that gained a finding open again; ignored ones stay ignored (docs/findings.md). */
export async function reopenGroups(
  db: Executor,
  accountId: string,
  groupIds: readonly string[],
  at: Date,
): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `update finding_groups set status = 'open', status_changed_at = $3, status_changed_by = null, updated_at = $3
      where account_id = $1 and id = any($2::uuid[]) and status = 'closed'
      returning id`,
    [accountId, groupIds, at],
  );
  return rows.map((row) => row.id);
}

/** Open groups left without a live finding close; ignored ones stay ignored. */
export async function closeEmptiedGroups(
  db: Executor,
  accountId: string,
  groupIds: readonly string[],
  at: Date,
): Promise<void> {
  if (groupIds.length === 0) return;
  await db.query(
    `update finding_groups g set status = 'closed', status_changed_at = $3, status_changed_by = null, updated_at = $3
      where g.account_id = $1 and g.id = any($2::uuid[]) and g.status = 'open'
        and not exists (select 1 from findings f
                         where f.account_id = g.account_id and f.group_id = g.id and f.deleted_at is null)`,
    [accountId, groupIds, at],
  );
}

/** Tenant of the account: findings and notifications carry it. */
export async function findTenantId(db: Executor, accountId: string): Promise<string> {
  const { rows } = await db.query<{ tenant_id: string }>('select tenant_id from accounts where id = $1', [
    accountId,
  ]);
  const tenantId = rows[0]?.tenant_id;
  if (!tenantId) throw new Error(`account ${accountId} has no tenant`);
  return tenantId;
}
