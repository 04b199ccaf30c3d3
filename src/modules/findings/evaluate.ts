/**
 * One findings evaluation, inside the caller's transaction: the drafts the rules computed for a
 * scope are diffed with the live findings stored for that same scope, and only the difference is
 * written (docs/findings.md, "Lifecycle"):
 *
 * - a new fingerprint is inserted; one that returns revives its old row;
 * - a stored fingerprint the rules no longer produce gets deleted_at;
 * - a group is created open; a closed group that gains a finding reopens, an ignored one stays
 *   ignored; an open group left without live findings closes;
 * - the groups created or reopened are handed to the FindingGroupsOpened listeners (integrations),
 *   in the same transaction.
 */
import { hash } from 'node:crypto';
import type { Executor } from '../../db/database.js';
import {
  type FindingDraft,
  findingFingerprint,
  groupKey,
  severityInt,
} from '../../engines/findings/index.js';
import { newId } from '../../http/ids.js';
import type { FindingGroupsOpenedListener, NotifiedFindingGroup } from './events.js';
import * as store from './store.js';

export interface EvaluationContext {
  tenantId: string;
  /** the ingestion time: first/last seen, deleted_at and status changes */
  at: Date;
  listeners: readonly FindingGroupsOpenedListener[];
}

export interface EvaluationSummary {
  inserted: number;
  deleted: number;
  changed: number;
  opened: number;
}

function contentHash(draft: FindingDraft): string {
  const shown = [draft.severity, draft.rule.title, draft.source.name, draft.source.namespace, draft.messages];
  const attrs = [draft.fixAttrs, draft.ruleAttrs, draft.source.attrs];
  return hash('sha256', JSON.stringify([shown, attrs]), 'hex');
}

/** One row per group key: the most severe draft describes the group. */
function groupRows(drafts: readonly FindingDraft[], known: Map<string, store.StoredGroup>) {
  const rows = new Map<string, store.GroupRow>();
  for (const draft of drafts) {
    const key = groupKey(draft);
    const current = rows.get(key);
    if (current && current.severity_int >= severityInt(draft.severity)) continue;
    rows.set(key, {
      id: current?.id ?? known.get(key)?.id ?? newId(),
      group_key: key,
      type: draft.rule.type,
      rule_id: draft.rule.id,
      rule_title: draft.rule.title,
      severity: draft.severity,
      severity_int: severityInt(draft.severity),
      source_kind: draft.source.kind,
      source_type: draft.source.type,
      source_id: draft.source.id,
      source_name: draft.source.name,
      source_namespace: draft.source.namespace,
      rule_attrs: { description: draft.rule.description, family: draft.rule.family },
      source_attrs: draft.source.attrs,
    });
  }
  return rows;
}

function notified(
  row: store.GroupRow,
  clusterId: string,
  accountId: string,
  at: string,
): NotifiedFindingGroup {
  return {
    id: row.id,
    account_id: accountId,
    cluster_id: clusterId,
    type: row.type,
    rule_id: row.rule_id,
    rule_title: row.rule_title,
    severity: row.severity,
    status: 'open',
    source_kind: row.source_kind,
    source_type: row.source_type,
    source_name: row.source_name,
    source_namespace: row.source_namespace,
    first_seen: at,
    last_seen: at,
  };
}

/**
 * Applies what the rules computed for `scope`. `drafts` must be every finding of the scope that
 * holds now: a stored finding of the scope missing from them is deleted.
 */
export async function applyEvaluation(
  db: Executor,
  scope: store.EvaluationScope,
  drafts: readonly FindingDraft[],
  context: EvaluationContext,
): Promise<EvaluationSummary> {
  const { accountId, clusterId } = scope;
  const { at } = context;
  const live = await store.loadLiveFindings(db, scope);
  const liveByFingerprint = new Map(live.map((finding) => [finding.fingerprint, finding]));

  const keys = [...new Set(drafts.map(groupKey))];
  const known = new Map((await store.findGroups(db, scope, keys)).map((group) => [group.group_key, group]));
  const groups = groupRows(drafts, known);
  await store.upsertGroups(
    db,
    { accountId, clusterId, tenantId: context.tenantId },
    [...groups.values()],
    at,
  );

  const written: store.FindingRow[] = [];
  const computed = new Set<string>();
  const gainedGroups = new Set<string>();
  let inserted = 0;
  for (const draft of drafts) {
    const fingerprint = findingFingerprint(draft);
    if (computed.has(fingerprint)) continue; // a rule naming one occurrence twice
    computed.add(fingerprint);
    const group = groups.get(groupKey(draft));
    if (!group) continue; // not reached: every draft has its group
    const hash = contentHash(draft);
    const stored = liveByFingerprint.get(fingerprint);
    if (stored && stored.content_hash === hash && stored.group_id === group.id) continue;
    if (!stored) {
      inserted++;
      gainedGroups.add(group.id);
    }
    written.push({
      id: stored?.id ?? newId(),
      group_id: group.id,
      fingerprint,
      source_key: draft.scopeKey ?? (scope.family === 'misconfiguration' ? draft.source.id : clusterId),
      type: draft.rule.type,
      rule_id: draft.rule.id,
      rule_title: draft.rule.title,
      severity: draft.severity,
      severity_int: severityInt(draft.severity),
      source_kind: draft.source.kind,
      source_type: draft.source.type,
      source_id: draft.source.id,
      source_name: draft.source.name,
      source_namespace: draft.source.namespace,
      messages: draft.messages,
      fix_attrs: draft.fixAttrs,
      rule_attrs: draft.ruleAttrs,
      source_attrs: draft.source.attrs,
      content_hash: hash,
    });
  }
  const scopeIds = { accountId, clusterId, tenantId: context.tenantId, family: scope.family };
  await store.upsertFindings(db, scopeIds, written, at);

  const gone = live.filter((finding) => !computed.has(finding.fingerprint));
  await store.deleteFindings(
    db,
    accountId,
    gone.map((finding) => finding.id),
    at,
  );
  await store.closeEmptiedGroups(db, accountId, [...new Set(gone.map((finding) => finding.group_id))], at);

  const reopened = new Set(await store.reopenGroups(db, accountId, [...gainedGroups], at));
  const atText = at.toISOString();
  const opened = [...groups.values()].filter((row) => !known.has(row.group_key) || reopened.has(row.id));
  if (opened.length > 0) {
    const groupsOpened = opened.map((row) => ({
      ...notified(row, clusterId, accountId, atText),
      // a reopened group keeps its first_seen
      first_seen: known.get(row.group_key)?.first_seen.toISOString() ?? atText,
    }));
    const event = { tenantId: context.tenantId, accountId, groups: groupsOpened };
    for (const listener of context.listeners) await listener(db, event);
  }
  return { inserted, deleted: gone.length, changed: written.length - inserted, opened: opened.length };
}
