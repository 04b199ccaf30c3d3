/**
 * An identity's API JSON assembled from text, without parsing what storage already holds as JSON
 * (docs/performance.md, "Fix 6"). A page of 50 identities is ~700 KB; parsing the stored
 * rbac_objects and the raw Kubernetes objects and serializing them again through the response
 * schema was most of the server's work per page.
 *
 * What is cached is only what the recompute alone writes: `assigned_roles`, `graph` and
 * `permissions` (columns assigned_roles_json and access_json, written in the identity's upsert).
 * Everything else is read at request time, because something other than that upsert changes it:
 * - the row's scalar fields: a touch moves `last_used_at`, a removal rewrites status, score and
 *   `updated_at` (which is also `rbac_objects.created_at`);
 * - `risks`: each risk's own cached text with its detection times, which move without the identity
 *   being rewritten (risk-json.ts);
 * - `raw_rbac_objects`: cluster_resources versions, spliced in as the stored text (a version no
 *   longer stored drops out, as before).
 *
 * The text is JSON.stringify over objects that carry exactly the response schema's fields in its
 * order (free-form objects in the order the stored jsonb gives them), so it is what the schema
 * serializer wrote before, byte for byte; identity-json.test.ts compares both, and every test
 * response is validated against the route's schema.
 */
import type {
  AssignedRole,
  ComputedIdentity,
  GraphEdge,
  GraphNode,
  Permission,
} from '../../engines/rbac/index.js';
import { iso } from '../../http/ids.js';
import { identityHead } from './mapping.js';
import type { IdentityRow } from './repository.js';

/** An assigned role as stored: the engine's plus the storage-owned SubjectRef fields. */
export interface StoredAssignedRole extends AssignedRole {
  account_id: string;
  updated_at: string | null;
}

export interface CachedAccess {
  assignedRolesJson: string;
  accessJson: string;
}

/**
 * API text of engine objects, once per object: the engine shares permission entries and graph
 * nodes between identities (every service account reaches the default bindings), and its output is
 * read-only, so the text cannot go stale.
 */
const apiTextOf = new WeakMap<object, string>();
function apiText<T extends object>(value: T, toApi: (value: T) => unknown): string {
  let text = apiTextOf.get(value);
  if (text === undefined) {
    text = JSON.stringify(toApi(value));
    apiTextOf.set(value, text);
  }
  return text;
}

/**
 * A free-form value with its object keys in jsonb's order (shorter keys first, then by their
 * UTF-8 bytes): graph node properties were always served from the stored jsonb, so the cached
 * text keeps the order clients have seen.
 */
function inJsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inJsonbOrder);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).map((key) => ({ key, bytes: Buffer.from(key, 'utf8') }));
  keys.sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes));
  return Object.fromEntries(
    keys.map(({ key }) => [key, inJsonbOrder((value as Record<string, unknown>)[key])]),
  );
}

const apiNode = (node: GraphNode) => ({
  id: node.id,
  type: node.type,
  properties: inJsonbOrder(node.properties),
});
const apiEdge = (edge: GraphEdge) => ({
  id: edge.id,
  from_id: edge.from_id,
  to_id: edge.to_id,
  type: edge.type,
});
const apiPermission = (permission: Permission) => ({
  api_groups: permission.api_groups,
  namespace: permission.namespace,
  resource_names: permission.resource_names,
  resources: permission.resources,
  verbs: permission.verbs,
});
const apiRole = (role: StoredAssignedRole) => ({
  id: role.id,
  uid: role.uid,
  kind: role.kind,
  name: role.name,
  namespace: role.namespace,
  account_id: role.account_id,
  cluster_id: role.cluster_id,
  created_at: role.created_at,
  updated_at: role.updated_at,
});

const array = (texts: string[]) => `[${texts.join(',')}]`;

/** The cached columns of one computed identity (the recompute writes them with rbac_objects). */
export function cachedAccess(
  assignedRoles: readonly StoredAssignedRole[],
  rbac: ComputedIdentity['rbac_objects'],
): CachedAccess {
  const nodes = array(rbac.graph.nodes.map((node) => apiText(node, apiNode)));
  const edges = array(rbac.graph.edges.map((edge) => apiText(edge, apiEdge)));
  const permissions = array(rbac.permissions.map((permission) => apiText(permission, apiPermission)));
  return {
    assignedRolesJson: JSON.stringify(assignedRoles.map(apiRole)),
    accessJson: `{"graph":{"nodes":${nodes},"edges":${edges}},"permissions":${permissions}}`,
  };
}

/** A cluster_resources version as read for raw_rbac_objects: its kind column and stored text. */
export interface RawObjectText {
  kind: string;
  raw: string;
}

const RAW_BUCKET_ORDER = ['cluster_role_bindings', 'cluster_roles', 'role_bindings', 'roles'] as const;
const RAW_BUCKET: Record<string, (typeof RAW_BUCKET_ORDER)[number]> = {
  ClusterRoleBinding: 'cluster_role_bindings',
  ClusterRole: 'cluster_roles',
  RoleBinding: 'role_bindings',
  Role: 'roles',
};

/**
 * `raw_rbac_objects` from the stored texts, in the order of the identity's record ids, appended to
 * `out` as pieces (the stored texts themselves, never joined: the caller encodes the pieces once,
 * utf8-bytes.ts). The kind column is the pushed object's `kind` (checked at ingestion), and the
 * text is its JSON.stringify, so this is the parsed path's content without the parse.
 */
export function rawRbacObjectsParts(
  row: IdentityRow,
  rawByKey: ReadonlyMap<string, RawObjectText>,
  out: string[],
): void {
  const buckets: Record<(typeof RAW_BUCKET_ORDER)[number], string[]> = {
    cluster_role_bindings: [],
    cluster_roles: [],
    role_bindings: [],
    roles: [],
  };
  for (const id of row.raw_record_ids) {
    const object = rawByKey.get(`${row.cluster_id}/${id}`);
    const bucket = object && RAW_BUCKET[object.kind];
    if (bucket) buckets[bucket].push(object.raw);
  }
  RAW_BUCKET_ORDER.forEach((bucket, index) => {
    out.push(index === 0 ? `{"${bucket}":[` : `],"${bucket}":[`);
    buckets[bucket].forEach((raw, position) => {
      if (position > 0) out.push(',');
      out.push(raw);
    });
  });
  out.push(']}');
}

function apiRisksSummary(stored: IdentityRow['risks_summary']) {
  const summary = stored as {
    risks: { type: string; count: number; weight: number; normalized_weight: number; score: number }[];
    total_risk_score: number;
    total_weight: number;
  };
  return {
    risks: summary.risks.map((risk) => ({
      type: risk.type,
      count: risk.count,
      weight: risk.weight,
      normalized_weight: risk.normalized_weight,
      score: risk.score,
    })),
    total_risk_score: summary.total_risk_score,
    total_weight: summary.total_weight,
  };
}

/** Whether the row has the cached columns identityJsonParts needs (written since migration 0016). */
export const hasCachedAccess = (
  row: IdentityRow,
): row is IdentityRow & { assigned_roles_json: string; access_json: string } =>
  row.assigned_roles_json !== null && row.access_json !== null;

/**
 * The identity as the API returns it, as text pieces to be joined (or encoded together,
 * utf8-bytes.ts), around its `risks` array's text (risk-json.ts); null when the row predates the
 * cached columns (the caller serializes it the old way).
 */
export function identityJsonParts(
  row: IdentityRow,
  risksJson: string,
  rawByKey: ReadonlyMap<string, RawObjectText>,
): string[] | null {
  if (!hasCachedAccess(row)) return null;
  const head = JSON.stringify(identityHead(row));
  const parts = [
    head.slice(0, -1),
    ',"risks":',
    risksJson,
    ',"risks_summary":',
    JSON.stringify(apiRisksSummary(row.risks_summary)),
    ',"rbac_objects":{"assigned_roles":',
    row.assigned_roles_json,
    ',"created_at":',
    JSON.stringify(iso(row.updated_at)),
    ',',
    // the access text's own closing brace closes rbac_objects
    row.access_json.slice(1),
    ',"raw_rbac_objects":',
  ];
  rawRbacObjectsParts(row, rawByKey, parts);
  parts.push('}');
  return parts;
}
