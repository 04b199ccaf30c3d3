/**
 * Schemas of the identity endpoints (#14-#18). Field names follow the description's Identity,
 * Risk, filter options and report shapes; docs/identities-api.md explains the values.
 */
import { Type } from 'typebox';
import { Id, NullableTimestamp, PageList, pageQuery, Timestamp } from '../../http/schemas.js';
import { FreeObject, GraphSchema, SubjectRefSchema } from '../rbac/shapes.js';

export const IDENTITY_SORT_FIELDS = [
  'risk_score',
  'name',
  'namespace',
  'type',
  'created_at',
  'updated_at',
  'last_used_at',
  'last_detected_at',
  'linked_resources',
] as const;
export const DEFAULT_IDENTITY_SORT = 'risk_score:desc';

export const RISK_LEVEL_VALUES = ['Unspecified', 'Negligible', 'Low', 'Medium', 'High', 'Critical'] as const;
export const IDENTITY_TYPE_VALUES = ['k8s_service_account', 'k8s_user', 'k8s_group'] as const;
export const STATUS_VALUES = ['open', 'resolved'] as const;
export const USAGE_VALUES = ['used', 'unused', 'unknown'] as const;

const Severity = Type.String({ description: 'negligible, low, medium, high or critical' });

export const RiskSchema = Type.Object({
  id: Type.String(),
  identity_id: Type.String(),
  type: Type.String({ description: 'the risk rule (docs/identity-risk.md), e.g. secrets_read' }),
  name: Type.String(),
  description: Type.String(),
  fingerprint: Type.String({ description: 'stable across ingestions while the same bindings give the risk' }),
  weight: Type.Number(),
  score: Type.Number({ description: 'weight x factor (scope, resourceNames)' }),
  severity: Severity,
  namespace: Type.String({ description: "scope of the risk; '' cluster-wide" }),
  risk_counter: Type.Integer({ description: 'how many bindings give it' }),
  associated_resources: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), severity: Severity }),
  ),
  first_detected_at: Timestamp,
  last_detected_at: Timestamp,
  deleted_at: Type.Union([Timestamp, Type.Null()], { description: 'set when the risk was resolved' }),
});

const RisksSummarySchema = Type.Object({
  risks: Type.Array(
    Type.Object({
      type: Type.String(),
      count: Type.Integer(),
      weight: Type.Number(),
      normalized_weight: Type.Number(),
      score: Type.Number(),
    }),
  ),
  total_risk_score: Type.Number(),
  total_weight: Type.Number(),
});

const PermissionSchema = Type.Object({
  api_groups: Type.Array(Type.String()),
  namespace: Type.String({ description: "'' = cluster-wide" }),
  resource_names: Type.Array(Type.String()),
  resources: Type.Array(Type.String()),
  verbs: Type.Array(Type.String()),
});

export const IdentitySchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  tenant_id: Type.String(),
  original_id: Type.String({ description: "the service account's uid, or the user or group name" }),
  name: Type.String(),
  namespace: Type.String(),
  type: Type.Enum([...IDENTITY_TYPE_VALUES]),
  source_id: Type.String({ description: 'the cluster id' }),
  source_name: Type.String({ description: 'the cluster name' }),
  source_type: Type.String({ description: 'k8s_cluster' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
  resolved_at: NullableTimestamp,
  resolved_reason: Type.Union([
    Type.Enum(['risks_resolved', 'no_risks_detected', 'identity_deleted']),
    Type.Null(),
  ]),
  status: Type.Enum([...STATUS_VALUES]),
  actions: Type.Array(Type.String()),
  risk_types: Type.Array(Type.String()),
  linked_resources: Type.Integer(),
  rightsizeable: Type.Boolean(),
  risk_score: Type.Number({ minimum: 0, maximum: 100 }),
  risk_level: Type.Enum([...RISK_LEVEL_VALUES]),
  risk_detectors: FreeObject,
  risks: Type.Array(RiskSchema, { description: 'open risks first, then resolved ones (deleted_at set)' }),
  risks_summary: RisksSummarySchema,
  rbac_objects: Type.Object({
    assigned_roles: Type.Array(SubjectRefSchema),
    created_at: Timestamp,
    graph: GraphSchema,
    permissions: Type.Array(PermissionSchema),
  }),
  raw_rbac_objects: Type.Object({
    cluster_role_bindings: Type.Array(FreeObject),
    cluster_roles: Type.Array(FreeObject),
    role_bindings: Type.Array(FreeObject),
    roles: Type.Array(FreeObject),
  }),
});

const list = (what: string) =>
  Type.Optional(Type.String({ description: `${what}; comma-separated values match any of them` }));
const time = (what: string) =>
  Type.Optional(Type.String({ description: `${what} (RFC 3339 or relative such as now-7d)` }));

export const IdentityListQuery = Type.Object({
  from: time('created_at >= from'),
  to: time('created_at <= to'),
  from_last_used_at: time('last_used_at >= this'),
  to_last_detected_at: time('last_detected_at <= this'),
  ...pageQuery(50),
  q: Type.Optional(
    Type.String({ maxLength: 500, description: 'case-insensitive substring of name or namespace' }),
  ),
  resources: list(
    'resources the identity holds a permission on, e.g. secrets,pods/exec (literal, `*` is a value)',
  ),
  risks: list('open risk types, e.g. cluster_admin,secrets_read'),
  usages: list('used, unused or unknown'),
  risk_levels: list('Critical, High, Medium, Low, Negligible or Unspecified (any case)'),
  identity_types: list('k8s_service_account, k8s_user or k8s_group'),
  identity_sources: list('cluster ids'),
  actions: list('verbs the identity holds, e.g. get,create,*'),
  statuses: list('open or resolved'),
  sort: Type.Optional(
    Type.String({
      description: `field:asc|desc, field one of ${IDENTITY_SORT_FIELDS.join(', ')}; default ${DEFAULT_IDENTITY_SORT}`,
    }),
  ),
});

export const IdentityList = PageList(IdentitySchema);
export const IdentityParams = Type.Object({ account_id: Id, identity_id: Id });
export const IdentityRiskParams = Type.Object({ account_id: Id, identity_id: Id, risk_type: Id });
export const RiskPageQuery = Type.Object(pageQuery(50));
export const RiskList = PageList(RiskSchema);

const Options = Type.Array(Type.Object({ label: Type.String(), value: Type.String() }));
export const FilterOptionsSchema = Type.Object({
  actions: Options,
  identity_sources: Options,
  identity_types: Options,
  resources: Options,
  risk_levels: Options,
  risk_types: Options,
  statuses: Options,
  usages: Options,
});

const Counts = Type.Record(Type.String(), Type.Integer());
export const IdentitiesReportSchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  created_at: Timestamp,
  year: Type.Integer(),
  month: Type.Integer(),
  day: Type.Integer(),
  hour: Type.Integer(),
  identities_count: Type.Integer(),
  identities_with_risks_count: Type.Integer(),
  risks_count: Type.Integer(),
  avg_risk_score: Type.Number(),
  avg_risks_per_identity: Type.Number(),
  identity_counts_per_level: Counts,
  identity_counts_per_risk: Counts,
  identity_counts_per_source: Counts,
  identity_counts_per_type: Counts,
  risk_counts_per_identity_type: Counts,
  risk_counts_per_source: Counts,
  risk_counts_per_type: Counts,
});
