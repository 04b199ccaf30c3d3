/**
 * Stored rows to API objects, field by field: the response schemas are allow-lists, and the
 * internal columns (hashes, facets, record ids) never leave the service.
 */

import type { Static } from 'typebox';
import { RISK_RULES_BY_TYPE, type RiskType } from '../../engines/rbac/index.js';
import { iso } from '../../http/ids.js';
import type { IdentityRow, ReportRow, RiskRow } from './repository.js';
import type { IdentitySchema } from './schemas.js';

export type ApiIdentity = Static<typeof IdentitySchema>;

/** A risk's fields as stored, without its detection times: an engine Risk or a stored row. */
export type RiskContent = Pick<
  RiskRow,
  | 'id'
  | 'identity_id'
  | 'type'
  | 'name'
  | 'description'
  | 'fingerprint'
  | 'weight'
  | 'score'
  | 'severity'
  | 'namespace'
  | 'risk_counter'
  | 'associated_resources'
>;

/**
 * The API risk's fields up to its detection times, in the response schema's order. The times come
 * last, which lets the text of this part be written once when the risk is (risk-json.ts).
 */
export function apiRiskHead(risk: RiskContent) {
  return {
    id: risk.id,
    identity_id: risk.identity_id,
    type: risk.type,
    name: risk.name,
    description: risk.description,
    fingerprint: risk.fingerprint,
    weight: Number(risk.weight),
    score: Number(risk.score),
    severity: risk.severity,
    namespace: risk.namespace,
    risk_counter: risk.risk_counter,
    associated_resources: risk.associated_resources.map((resource) => ({
      id: resource.id,
      name: resource.name,
      severity: resource.severity,
    })),
  };
}

export function toApiRisk(row: RiskRow) {
  return {
    ...apiRiskHead(row),
    first_detected_at: iso(row.first_detected_at)!,
    last_detected_at: iso(row.last_detected_at)!,
    deleted_at: iso(row.deleted_at),
  };
}

export type ApiRisk = ReturnType<typeof toApiRisk>;

type Json = Record<string, unknown>;

export interface RawRbacObjects {
  cluster_role_bindings: Json[];
  cluster_roles: Json[];
  role_bindings: Json[];
  roles: Json[];
}

const RAW_BUCKETS: Record<string, keyof RawRbacObjects> = {
  ClusterRoleBinding: 'cluster_role_bindings',
  ClusterRole: 'cluster_roles',
  RoleBinding: 'role_bindings',
  Role: 'roles',
};

/** The identity's raw objects from the stored versions, in the order the engine gave them. */
export function rawRbacObjects(
  row: IdentityRow,
  rawByKey: ReadonlyMap<string, { raw: string }>,
): RawRbacObjects {
  const raw: RawRbacObjects = { cluster_role_bindings: [], cluster_roles: [], role_bindings: [], roles: [] };
  for (const id of row.raw_record_ids) {
    const text = rawByKey.get(`${row.cluster_id}/${id}`)?.raw;
    if (text === undefined) continue; // a version removed by retention: the reference stays harmless
    const object = JSON.parse(text) as Json;
    const bucket = RAW_BUCKETS[String(object.kind)];
    if (bucket) raw[bucket].push(object);
  }
  return raw;
}

/** The identity's own fields up to `risk_detectors`, in the response schema's order. */
export function identityHead(row: IdentityRow) {
  return {
    id: row.id,
    account_id: row.account_id,
    tenant_id: row.tenant_id,
    original_id: row.original_id,
    name: row.name,
    namespace: row.namespace,
    type: row.type as ApiIdentity['type'],
    source_id: row.cluster_id,
    source_name: row.source_name,
    source_type: row.source_type,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    deleted_at: iso(row.deleted_at),
    last_used_at: iso(row.last_used_at),
    resolved_at: iso(row.resolved_at),
    resolved_reason: row.resolved_reason as ApiIdentity['resolved_reason'],
    status: row.status,
    actions: row.actions,
    risk_types: row.risk_types,
    linked_resources: row.linked_resources,
    rightsizeable: row.rightsizeable,
    risk_score: Number(row.risk_score),
    risk_level: row.risk_level as ApiIdentity['risk_level'],
    risk_detectors: row.risk_detectors,
  };
}

/**
 * The API object of a row read with its stored rbac_objects (rows without the cached text of
 * identity-json.ts); the response schema serializes it.
 */
export function toApiIdentity(
  row: IdentityRow & { rbac_objects: Record<string, unknown> },
  risks: RiskRow[],
  raw: RawRbacObjects,
): ApiIdentity {
  const rbac = row.rbac_objects as unknown as ApiIdentity['rbac_objects'];
  return {
    ...identityHead(row),
    risks: risks.map(toApiRisk),
    risks_summary: row.risks_summary as unknown as ApiIdentity['risks_summary'],
    rbac_objects: {
      assigned_roles: rbac.assigned_roles,
      // when this snapshot of the identity's access was computed
      created_at: iso(row.updated_at)!,
      graph: rbac.graph,
      permissions: rbac.permissions,
    },
    raw_rbac_objects: raw,
  };
}

const sortedKeys = (counts: unknown): Record<string, number> =>
  Object.fromEntries(
    Object.entries((counts ?? {}) as Record<string, number>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );

/** jsonb keeps keys in its own order; the report's maps leave sorted by key as the engine built them. */
export function toApiReport(row: ReportRow) {
  const body = row.body;
  return {
    id: row.id,
    account_id: row.account_id,
    created_at: iso(row.created_at)!,
    year: row.year,
    month: row.month,
    day: row.day,
    hour: row.hour,
    identities_count: Number(body.identities_count),
    identities_with_risks_count: Number(body.identities_with_risks_count),
    risks_count: Number(body.risks_count),
    avg_risk_score: Number(body.avg_risk_score),
    avg_risks_per_identity: Number(body.avg_risks_per_identity),
    identity_counts_per_level: sortedKeys(body.identity_counts_per_level),
    identity_counts_per_risk: sortedKeys(body.identity_counts_per_risk),
    identity_counts_per_source: sortedKeys(body.identity_counts_per_source),
    identity_counts_per_type: sortedKeys(body.identity_counts_per_type),
    risk_counts_per_identity_type: sortedKeys(body.risk_counts_per_identity_type),
    risk_counts_per_source: sortedKeys(body.risk_counts_per_source),
    risk_counts_per_type: sortedKeys(body.risk_counts_per_type),
  };
}

/** Human labels of the #15 values; values outside the known vocabularies label themselves. */
const LABELS: Record<string, Record<string, string>> = {
  identity_type: { k8s_service_account: 'Service account', k8s_user: 'User', k8s_group: 'Group' },
  status: { open: 'Open', resolved: 'Resolved' },
  usage: { used: 'Used', unused: 'Unused', unknown: 'Unknown (users and groups)' },
};

export function filterLabel(facet: string, value: string, stored: string): string {
  if (facet === 'risk') return RISK_RULES_BY_TYPE.get(value as RiskType)?.name ?? value;
  if (facet === 'identity_source') return stored;
  return LABELS[facet]?.[value] ?? value;
}
