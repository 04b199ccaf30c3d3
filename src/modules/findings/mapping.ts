/** Stored rows to API objects, field by field (no internal column can leak). */
import { iso } from '../../http/ids.js';
import type { FindingRow, GroupRow } from './repository.js';

const time = (value: Date): string => iso(value) as string;

export function toApiGroup(row: GroupRow) {
  return {
    id: row.id,
    group_id: row.group_key,
    account_id: row.account_id,
    cluster_id: row.cluster_id,
    type: row.type,
    rule_id: row.rule_id,
    rule_title: row.rule_title,
    severity: row.severity,
    source_kind: row.source_kind,
    source_type: row.source_type,
    source_name: row.source_name,
    source_namespace: row.source_namespace,
    status: row.status,
    status_changed_at: time(row.status_changed_at),
    status_changed_by: row.status_changed_by,
    first_seen: time(row.first_seen),
    last_seen: time(row.last_seen),
    event_timestamp: time(row.event_timestamp),
    rule_attrs: row.rule_attrs,
    source_attrs: row.source_attrs,
  };
}

export function toApiFinding(row: FindingRow) {
  return {
    id: row.id,
    account_id: row.account_id,
    tenant_id: row.tenant_id,
    cluster_id: row.cluster_id,
    fingerprint: row.fingerprint,
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
    source_owner_id: row.source_owner_id,
    source_actor: row.source_actor,
    owner_id: row.owner_id,
    messages: row.messages,
    fix_attrs: row.fix_attrs,
    rule_attrs: row.rule_attrs,
    source_attrs: row.source_attrs,
    tags: row.tags,
    event_timestamp: time(row.event_timestamp),
    created_at: time(row.created_at),
    updated_at: time(row.updated_at),
    deleted_at: iso(row.deleted_at),
  };
}
