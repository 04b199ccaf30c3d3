/**
 * Runtime insights: the description's Runtime insight and analysis record, the list of
 * DESIGN.md section 6 and the detail (#6).
 */
import { Type } from 'typebox';
import { SEVERITIES } from '../../engines/runtime/index.js';
import { Id, NullableTimestamp, OffsetList, OffsetQuery, Timestamp } from '../../http/schemas.js';
import { childrenLimitQuery, FingerprintSchema } from './fingerprint-schemas.js';

const Severity = Type.Enum([...SEVERITIES]);
const Ref = Type.Object({ id: Type.String(), link: Type.String(), name: Type.String() });

export const AnalysisRecordSchema = Type.Object({
  accountID: Type.String(),
  action: Type.String({ description: 'terminate_pod, investigate or review' }),
  category: Type.String(),
  clusterID: Type.String(),
  createdAt: Timestamp,
  deletedAt: NullableTimestamp,
  description: Type.String(),
  falsePositive: Type.Boolean(),
  falsePositiveMatchedRules: Type.Array(Type.String()),
  falsePositiveReason: Type.String(),
  id: Type.String(),
  insightID: Type.String(),
  insightIDs: Type.Array(Type.String()),
  llmProvider: Type.String({ description: "'' for the rule-based analysis" }),
  maliciousProcessIDs: Type.Array(Type.String()),
  mitreAttackTactics: Type.Array(Ref),
  mitreAttackTechniques: Type.Array(
    Type.Object({ id: Type.String(), link: Type.String(), name: Type.String(), tactics: Type.Array(Ref) }),
  ),
  model: Type.String(),
  partial: Type.Boolean({ description: 'a cap dropped items or signals, or the LLM analysis failed' }),
  prompt: Type.String(),
  promptDigest: Type.String({ description: 'SHA-256 of prompt, hex' }),
  refs: Type.Array(Type.String()),
  remediation: Type.String(),
  severity: Severity,
  stale: Type.Boolean(),
  status: Type.String({ description: 'completed, or failed when the LLM provider gave no usable answer' }),
  totalRequests: Type.Integer(),
  triggeredBy: Type.String({ description: 'drift or alert' }),
  updatedAt: Timestamp,
});

const insightFields = {
  accountID: Type.String(),
  analysis: Type.Array(AnalysisRecordSchema, { description: 'the rule-based analysis' }),
  baselineCaptured: Type.Boolean(),
  baselineID: Type.String({ description: "id of the captured baseline (#7); '' while learning" }),
  clusterID: Type.String(),
  createdAt: Timestamp,
  deletedAt: NullableTimestamp,
  hasDrift: Type.Boolean(),
  id: Type.String(),
  llmAnalysis: Type.Union([AnalysisRecordSchema, Type.Null()], {
    description: 'the LLM analysis, when an LLM analyser is configured and has answered; else null',
  }),
  malicious: Type.Boolean(),
  severity: Severity,
  state: Type.Enum(['learning', 'monitoring', 'drift']),
  summary: Type.Object({
    container_meta: Type.Object({
      container_id: Type.String({
        description: 'the latest container instance, the same string as inventory_containers.container_id',
      }),
      container_image_digest: Type.String(),
      container_image_name: Type.String(),
      container_name: Type.String(),
      runtime_name: Type.String(),
    }),
    createdAt: Timestamp,
    deletedAt: NullableTimestamp,
    kube_meta: Type.Object({
      cluster_id: Type.String(),
      container_name: Type.String(),
      namespace: Type.String(),
      node_name: Type.String(),
      pod_name: Type.String(),
    }),
  }),
  updatedAt: Timestamp,
};

/** A list entry: the insight without its fingerprints, which only the detail (#6) renders. */
export const RuntimeInsightSummarySchema = Type.Object(insightFields);

export const RuntimeInsightSchema = Type.Object({
  ...insightFields,
  baseline: FingerprintSchema,
  ongoing: FingerprintSchema,
});

export const INSIGHT_FILTER_KEYS = ['cluster_id', 'container_id'] as const;
export const INSIGHT_SORT_FIELDS = ['updated_at', 'created_at', 'severity'] as const;

export const InsightListQuery = Type.Object({
  ...OffsetQuery,
  filters: Type.Optional(
    Type.String({
      description: `key:value,... with keys ${INSIGHT_FILTER_KEYS.join(', ')}; container_id matches any container instance the workload container was seen in`,
    }),
  ),
  container_ids: Type.Optional(
    Type.String({
      description:
        'comma-joined container ids (inventory_containers.container_id; a containerd:// prefix is ignored)',
    }),
  ),
  sort: Type.Optional(
    Type.String({
      description: `field:asc|desc, field one of ${INSIGHT_SORT_FIELDS.join(', ')}; default updated_at:desc`,
    }),
  ),
});

export const InsightList = OffsetList(RuntimeInsightSummarySchema);

export const InsightParams = Type.Object({ account_id: Id, id: Id });

export const InsightQuery = Type.Object({
  children_limit: Type.Optional(childrenLimitQuery),
  most_recent_limit: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1000,
      description:
        'programs, files and connections kept per process in both fingerprints: drifted ones first, ' +
        'then the most recently first seen; default: all',
    }),
  ),
});
