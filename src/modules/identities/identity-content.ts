/**
 * What storage keeps of one computed identity and of one risk, with a content hash each: the
 * recompute step rewrites a row only when its hash changes, so re-ingesting an unchanged cluster
 * writes timestamps, not JSON.
 *
 * The raw Kubernetes objects are not copied into the identity: it keeps the ids of the
 * cluster_resources versions it was computed from (`<uid>_<resourceVersion>`), and a detail read
 * fetches them by primary key. Shared bindings (every service account reaches the default
 * `system:authenticated` bindings) are thus stored once.
 */
import { createHash, hash as digest } from 'node:crypto';
import type { ComputedIdentity, Json, Risk } from '../../engines/rbac/index.js';
import { type CachedAccess, cachedAccess, type StoredAssignedRole } from './identity-json.js';

export const sha256 = (text: string): string => digest('sha256', text, 'hex');

/** The cluster_resources id of an object version: `<uid>_<resourceVersion>`. */
export function recordIdOf(raw: Json): string | null {
  const metadata = raw.metadata as { uid?: unknown; resourceVersion?: unknown } | undefined;
  const uid = metadata?.uid;
  const version = metadata?.resourceVersion;
  return typeof uid === 'string' && typeof version === 'string' ? `${uid}_${version}` : null;
}

/** When each RBAC object version was stored, by Kubernetes uid (assigned roles' updated_at). */
export type UpdatedAtByUid = ReadonlyMap<string, string>;

export interface IdentityContent {
  /**
   * the identity's access as the API's JSON text (identity-json.ts), the only copy stored; built
   * on demand (only written identities need it)
   */
  cachedAccess: () => CachedAccess;
  rawRecordIds: string[];
  /** facet rows: resources and actions the identity holds, open risk types */
  facets: { facet: 'resource' | 'action' | 'risk'; value: string }[];
  hash: string;
}

/** Kubernetes timestamps (`2026-01-02T03:04:05Z`) as the API writes them, with milliseconds. */
function normalizedTime(value: string | null): string | null {
  const time = value === null ? Number.NaN : Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/**
 * JSON text of engine objects, once per object: the engine shares permission entries and graph
 * nodes and edges between identities (every service account reaches the default bindings), so
 * stringifying each shared object once keeps a 2,000-account recompute from serializing the same
 * nodes thousands of times. The engine output is read-only, so the cache cannot go stale.
 */
const jsonOf = new WeakMap<object, string>();
function cachedJson(value: object): string {
  let text = jsonOf.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonOf.set(value, text);
  }
  return text;
}

/**
 * The identity's `rbac_objects` (the engine's, assigned roles completed to SubjectRefs) as JSON
 * parts, hashed part by part into the content hash. They are never joined: since migration 0063
 * the row stores the access only as its API text (cachedAccess), but the hash is still taken over
 * these parts, so that identities stored before it are not all seen as changed.
 */
function rbacObjectsParts(identity: ComputedIdentity, assigned: readonly StoredAssignedRole[]): string[] {
  const { permissions, graph } = identity.rbac_objects;
  const list = (items: readonly object[]) =>
    items.map((item, index) => (index === 0 ? '' : ',') + cachedJson(item));
  return [
    `{"assigned_roles":${JSON.stringify(assigned)},"permissions":[`,
    ...list(permissions),
    '],"graph":{"nodes":[',
    ...list(graph.nodes),
    '],"edges":[',
    ...list(graph.edges),
    ']}}',
  ];
}

export function identityContent(
  identity: ComputedIdentity,
  context: { accountId: string; tenantId: string; updatedAt: UpdatedAtByUid },
): IdentityContent {
  const raw = identity.raw_rbac_objects;
  const rawRecordIds = [
    ...raw.cluster_role_bindings,
    ...raw.cluster_roles,
    ...raw.role_bindings,
    ...raw.roles,
  ]
    .map(recordIdOf)
    .filter((id): id is string => id !== null);
  const assigned = identity.rbac_objects.assigned_roles.map(
    (role): StoredAssignedRole => ({
      ...role,
      created_at: normalizedTime(role.created_at),
      account_id: context.accountId,
      updated_at: context.updatedAt.get(role.uid) ?? normalizedTime(role.created_at),
    }),
  );
  const parts = rbacObjectsParts(identity, assigned);
  const facets = [
    ...identity.facets.resources.map((value) => ({ facet: 'resource' as const, value })),
    ...identity.actions.map((value) => ({ facet: 'action' as const, value })),
    ...identity.risk_types.map((value) => ({ facet: 'risk' as const, value })),
  ];
  const hash = createHash('sha256').update(
    JSON.stringify([
      context.tenantId,
      identity.original_id,
      identity.name,
      identity.namespace,
      identity.type,
      identity.source_name,
      identity.source_type,
      identity.risk_score,
      identity.risk_level,
      identity.risks_summary,
      identity.risk_detectors,
      identity.rightsizeable,
      identity.linked_resources,
      identity.facets.usage,
      identity.facets.system,
      facets,
      rawRecordIds,
    ]),
  );
  for (const part of parts) hash.update(part);
  return {
    cachedAccess: () => cachedAccess(assigned, identity.rbac_objects),
    rawRecordIds,
    facets,
    hash: hash.digest('hex'),
  };
}

/** A risk's stored content; its lifecycle timestamps are not part of the hash. */
export function riskContentHash(risk: Risk): string {
  return sha256(
    JSON.stringify([
      risk.type,
      risk.name,
      risk.description,
      risk.weight,
      risk.score,
      risk.severity,
      risk.namespace,
      risk.associated_resources,
      risk.risk_counter,
    ]),
  );
}
