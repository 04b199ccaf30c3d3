/** The reads and the status write of the findings endpoints; account_id in every WHERE clause. */
import type { Executor } from '../../db/database.js';
import type { FindingSeverity } from '../../engines/findings/index.js';
import type { Filters } from '../../http/filters.js';
import { Where } from '../resources/where.js';
import type { GroupFilterKey, GroupStatus } from './schemas.js';

export interface GroupRow {
  id: string;
  account_id: string;
  cluster_id: string;
  group_key: string;
  type: string;
  rule_id: string;
  rule_title: string;
  severity: FindingSeverity;
  source_kind: string;
  source_type: string;
  source_name: string;
  source_namespace: string;
  status: GroupStatus;
  status_changed_at: Date;
  status_changed_by: string | null;
  first_seen: Date;
  last_seen: Date;
  event_timestamp: Date;
  rule_attrs: Record<string, unknown>;
  source_attrs: Record<string, unknown>;
}

export interface FindingRow {
  id: string;
  account_id: string;
  tenant_id: string;
  cluster_id: string;
  fingerprint: string;
  type: string;
  rule_id: string;
  rule_title: string;
  severity: FindingSeverity;
  severity_int: number;
  source_kind: string;
  source_type: string;
  source_id: string;
  source_name: string;
  source_namespace: string;
  source_owner_id: string;
  source_actor: string;
  owner_id: string;
  messages: string[];
  fix_attrs: Record<string, unknown>;
  rule_attrs: Record<string, unknown>;
  source_attrs: Record<string, unknown>;
  tags: Record<string, unknown>;
  event_timestamp: Date;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const GROUP_COLUMNS = `id, account_id, cluster_id, group_key, type, rule_id, rule_title, severity, source_kind,
  source_type, source_name, source_namespace, status, status_changed_at, status_changed_by, first_seen, last_seen,
  event_timestamp, rule_attrs, source_attrs`;

const FINDING_COLUMNS = `id, account_id, tenant_id, cluster_id, fingerprint, type, rule_id, rule_title, severity,
  severity_int, source_kind, source_type, source_id, source_name, source_namespace, source_owner_id, source_actor,
  owner_id, messages, fix_attrs, rule_attrs, source_attrs, tags, event_timestamp, created_at, updated_at, deleted_at`;

/** Filter keys are the column names themselves; the allow-list is GROUP_FILTER_KEYS. */
export async function listGroups(
  db: Executor,
  accountId: string,
  query: { filters: Filters<GroupFilterKey>; from?: Date; to?: Date; limit: number },
): Promise<GroupRow[]> {
  const where = new Where('account_id = $', accountId);
  for (const [key, values] of query.filters) where.addOneOf(key, values, 'text');
  if (query.from) where.add('last_seen >= $', query.from);
  if (query.to) where.add('last_seen <= $', query.to);
  const limit = where.next(query.limit);
  const { rows } = await db.query<GroupRow>(
    `select ${GROUP_COLUMNS} from finding_groups where ${where.sql}
      order by last_seen desc, id desc limit ${limit}`,
    where.params,
  );
  return rows;
}

export async function findGroup(
  db: Executor,
  accountId: string,
  groupId: string,
): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>(
    `select ${GROUP_COLUMNS} from finding_groups where account_id = $1 and id = $2`,
    [accountId, groupId],
  );
  return rows[0];
}

/** A group's findings: live ones first, then the most recently changed. */
export async function listGroupFindings(
  db: Executor,
  accountId: string,
  groupId: string,
  limit: number,
): Promise<FindingRow[]> {
  const { rows } = await db.query<FindingRow>(
    `select ${FINDING_COLUMNS} from findings where account_id = $1 and group_id = $2
      order by (deleted_at is not null), updated_at desc, id desc limit $3`,
    [accountId, groupId, limit],
  );
  return rows;
}

/** Sets the status when it changes (who and when recorded); the same status changes nothing. */
export async function setGroupStatus(
  db: Executor,
  accountId: string,
  groupId: string,
  change: { status: GroupStatus; userId: string; at: Date },
): Promise<void> {
  await db.query(
    `update finding_groups set status = $3, status_changed_by = $4, status_changed_at = $5, updated_at = $5
      where account_id = $1 and id = $2 and status <> $3`,
    [accountId, groupId, change.status, change.userId, change.at],
  );
}
