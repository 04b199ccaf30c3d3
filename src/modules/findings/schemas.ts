import { Type } from 'typebox';
import { ALL_RULES, FINDING_SEVERITIES } from '../../engines/findings/index.js';
import { Id, MAX_PAGE_SIZE, Timestamp } from '../../http/schemas.js';

export const GROUP_STATUSES = ['open', 'closed', 'ignored'] as const;
export type GroupStatus = (typeof GROUP_STATUSES)[number];

export const GROUP_FILTER_KEYS = [
  'type',
  'severity',
  'source_kind',
  'source_type',
  'source_namespace',
  'status',
  'rule_id',
] as const;
export type GroupFilterKey = (typeof GROUP_FILTER_KEYS)[number];

/** Free-form objects of the description ("not shown"): documented in docs/findings.md. */
const FreeForm = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const FindingSchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  tenant_id: Type.String(),
  cluster_id: Type.String(),
  fingerprint: Type.String({
    description: 'stable across re-evaluation: rule, source object and occurrence',
  }),
  type: Type.String(),
  rule_id: Type.String(),
  rule_title: Type.String(),
  severity: Type.Enum([...FINDING_SEVERITIES]),
  severity_int: Type.Integer({ description: '1 (negligible) to 5 (critical)' }),
  source_kind: Type.String(),
  source_type: Type.String(),
  source_id: Type.String(),
  source_name: Type.String(),
  source_namespace: Type.String(),
  source_owner_id: Type.String({ description: "'': findings are attributed to the top controller" }),
  source_actor: Type.String({ description: "'': no actor is known for evaluated state" }),
  owner_id: Type.String({ description: "'': reserved" }),
  messages: Type.Array(Type.String()),
  fix_attrs: FreeForm('how to fix: the field to change and its safe value'),
  rule_attrs: FreeForm('facts of this occurrence: container, volume, CVE, risk level ...'),
  source_attrs: FreeForm(
    'the source object: uid, kind, name, namespace (or identity/container ids; image repo, tag, digest)',
  ),
  tags: FreeForm('family: the evaluation that owns the finding'),
  event_timestamp: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Type.Union([Timestamp, Type.Null()], { description: 'when the finding stopped holding' }),
});

export const FindingGroupSchema = Type.Object({
  id: Type.String(),
  group_id: Type.String({ description: 'stable key of the group: hash of cluster, rule and source object' }),
  account_id: Type.String(),
  cluster_id: Type.String(),
  type: Type.String({ description: 'k8s_misconfiguration, identity_risk, vulnerability or runtime_alert' }),
  rule_id: Type.String(),
  rule_title: Type.String(),
  severity: Type.Enum([...FINDING_SEVERITIES]),
  source_kind: Type.String(),
  source_type: Type.String({ description: 'kubeobject, container, identity or image' }),
  source_name: Type.String(),
  source_namespace: Type.String(),
  status: Type.Enum([...GROUP_STATUSES]),
  status_changed_at: Timestamp,
  status_changed_by: Type.Union([Type.String(), Type.Null()], {
    description: 'the user who set the status; null when the evaluation did',
  }),
  first_seen: Timestamp,
  last_seen: Timestamp,
  event_timestamp: Timestamp,
  rule_attrs: FreeForm('description and family of the rule'),
  source_attrs: FreeForm('the source object'),
  findings: Type.Optional(
    Type.Array(FindingSchema, { description: 'one group (#24) only: live findings first, newest first' }),
  ),
});

export const FindingGroupList = Type.Array(FindingGroupSchema, {
  description: 'a bare array, newest last_seen first (then id); findings are not included',
});

export const GroupParams = Type.Object({ account_id: Id, group_id: Id });

export const GroupListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 100 })),
  filters: Type.Optional(
    Type.String({
      description:
        `key:value,... with keys ${GROUP_FILTER_KEYS.join(', ')}; the same key twice means OR. ` +
        `severity: ${FINDING_SEVERITIES.join(', ')}; status: ${GROUP_STATUSES.join(', ')}; ` +
        `rule_id: ${ALL_RULES.map((rule) => rule.id).join(', ')}`,
    }),
  ),
  from: Type.Optional(Type.String({ description: 'last_seen >= from (RFC 3339 or now-15m)' })),
  to: Type.Optional(Type.String({ description: 'last_seen <= to (RFC 3339 or now-15m)' })),
});

export const GroupDetailQuery = Type.Object({
  limit: Type.Optional(
    Type.String({
      description: `findings returned, digits only (declared a string by the API): 1..${MAX_PAGE_SIZE}, default 100`,
    }),
  ),
});

export const GroupStatusBody = Type.Object(
  { status: Type.Enum([...GROUP_STATUSES]) },
  { additionalProperties: false },
);
