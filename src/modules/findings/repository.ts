/** The reads and the status write of the findings endpoints; account_id in every WHERE clause. */
import type { Executor } from '../../db/database.js';
import { type RowVersion, rowVersionOf } from '../../db/entry-json.js';
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

/** A group row and its version (db/entry-json.ts): the list keeps each group's bytes by it. */
export type VersionedGroupRow = GroupRow & RowVersion;

export interface GroupListQuery {
  filters: Filters<GroupFilterKey>;
  from?: Date;
  to?: Date;
  limit: number;
}

/** The list's order: newest `last_seen` first, then id. */
const ORDER = 'order by last_seen desc, id desc';

/**
 * The most reads a filtered list is merged from, one per combination of its filters' values
 * (`severity:critical,severity:high,status:open` is two). Past it the list is one statement.
 */
const MAX_MERGED_READS = 16;

/** Every combination of one value of each filter key, or undefined past MAX_MERGED_READS. */
function valueCombinations(filters: Filters<GroupFilterKey>) {
  let combinations: [GroupFilterKey, string][][] = [[]];
  for (const [key, values] of filters) {
    // The same value twice is one: combinations must not overlap, or the merge repeats rows.
    const distinct = [...new Set(values)];
    if (combinations.length * distinct.length > MAX_MERGED_READS) return undefined;
    combinations = combinations.flatMap((combination) =>
      distinct.map((value): [GroupFilterKey, string][] => [...combination, [key, value]]),
    );
  }
  return combinations;
}

/**
 * The list's statement, reading `columns` (which name `id` and `last_seen`). Filter keys are the
 * column names themselves (the allow-list is GROUP_FILTER_KEYS); each has an index of (account_id,
 * key, last_seen, id), and the unfiltered list reads (account_id, last_seen, id) backwards.
 *
 * A filter of one value per key is one read of the key's index in the list's order, stopping at
 * the limit. Several values of a key (`severity:critical,severity:high`) are not: PostgreSQL 15
 * reads no index in order for `= any(...)`, and took the last_seen index instead, testing every
 * group of the account until the limit's worth matched; 146,000 groups and 90 ms for the open
 * critical and high ones of a large account, which are few and old (docs/performance.md, "Fix
 * 75"). So each combination of the filters' values is a read of its own, in the list's order and
 * limited, and the reads are merged (a Merge Append) and limited again.
 */
async function groupPage<Row>(db: Executor, accountId: string, query: GroupListQuery, columns: string) {
  const where = new Where('account_id = $', accountId);
  if (query.from) where.add('last_seen >= $', query.from);
  if (query.to) where.add('last_seen <= $', query.to);
  const limit = where.next(query.limit);
  const combinations = valueCombinations(query.filters);
  if (combinations === undefined) {
    for (const [key, values] of query.filters) where.addOneOf(key, values, 'text');
    const { rows } = await db.query<Row>(
      `select ${columns} from finding_groups where ${where.sql} ${ORDER} limit ${limit}`,
      where.params,
    );
    return rows;
  }
  const reads = combinations.map((combination) => {
    const equal = combination.map(([key, value]) => `${key} = ${where.next(value)}::text`);
    return `select ${columns} from finding_groups where ${[where.sql, ...equal].join(' and ')} ${ORDER} limit ${limit}`;
  });
  const sql =
    reads.length === 1
      ? reads[0]!
      : `select * from (${reads.map((read) => `(${read})`).join(' union all ')}) g ${ORDER} limit ${limit}`;
  const { rows } = await db.query<Row>(sql, where.params);
  return rows;
}

const VERSIONED_GROUP_COLUMNS = `${GROUP_COLUMNS}, ${rowVersionOf('finding_groups')}`;

/** The list's groups, whole, with their versions. */
export function listGroups(db: Executor, accountId: string, query: GroupListQuery) {
  return groupPage<VersionedGroupRow>(db, accountId, query, VERSIONED_GROUP_COLUMNS);
}

/** The list's groups as ids and versions alone: the server holds most of them as bytes. */
export function listGroupVersions(db: Executor, accountId: string, query: GroupListQuery) {
  return groupPage<RowVersion>(db, accountId, query, `id, last_seen, ${rowVersionOf('finding_groups')}`);
}

/** The account's groups `ids`, whole, with their versions, in no particular order. */
export async function groupsByIds(db: Executor, accountId: string, ids: readonly string[]) {
  const { rows } = await db.query<VersionedGroupRow>(
    `select ${VERSIONED_GROUP_COLUMNS} from finding_groups where account_id = $1 and id = any($2::uuid[])`,
    [accountId, ids],
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
