/**
 * The description's Runtime insight for one workload container: drift flags and severity from
 * the signals, the baseline and ongoing fingerprints, the container and Kubernetes summary, and
 * the analysis records. Ids and timestamps of stored rows come from the caller (storage).
 * `state` is `learning` (no baseline yet), `monitoring` (baseline captured, no drift) or `drift`.
 *
 * @example
 *   if (shouldRaiseInsight(state)) save(buildRuntimeInsight(state, { ..., analysis: [analyseWithRules(state, ctx)] }));
 */
import {
  type Fingerprint,
  renderFingerprint,
  type TruncateOptions,
  truncateFingerprint,
} from './render-fingerprint.js';
import { type AnalysisRecord, evaluateInsight } from './rule-analyser.js';
import type { Severity } from './severity.js';
import type { WorkloadContainerState } from './state.js';

export interface RuntimeInsight {
  accountID: string;
  analysis: AnalysisRecord[];
  baseline: Fingerprint;
  baselineCaptured: boolean;
  baselineID: string;
  clusterID: string;
  createdAt: string;
  deletedAt: string | null;
  hasDrift: boolean;
  id: string;
  llmAnalysis: AnalysisRecord | null;
  malicious: boolean;
  ongoing: Fingerprint;
  severity: Severity;
  state: 'learning' | 'monitoring' | 'drift';
  summary: {
    container_meta: {
      container_id: string;
      container_image_digest: string;
      container_image_name: string;
      container_name: string;
      runtime_name: string;
    };
    createdAt: string;
    deletedAt: string | null;
    kube_meta: {
      cluster_id: string;
      container_name: string;
      namespace: string;
      node_name: string;
      pod_name: string;
    };
  };
  updatedAt: string;
}

export interface InsightContext extends TruncateOptions {
  accountId: string;
  clusterId: string;
  insightId: string;
  baselineId: string;
  createdAt: string;
  updatedAt: string;
  analysis: AnalysisRecord[];
  llmAnalysis: AnalysisRecord | null;
}

/** Drift, or an alert from another engine, is worth an insight; quiet learning is not. */
export function shouldRaiseInsight(state: WorkloadContainerState): boolean {
  return state.ongoing.driftEvents > 0 || Object.keys(state.signals).length > 0;
}

export function buildRuntimeInsight(state: WorkloadContainerState, ctx: InsightContext): RuntimeInsight {
  const evaluation = evaluateInsight(state);
  const limits = { childrenLimit: ctx.childrenLimit, mostRecentLimit: ctx.mostRecentLimit };
  const captured = state.baselineCapturedAt !== null;
  return {
    accountID: ctx.accountId,
    analysis: ctx.analysis,
    baseline: truncateFingerprint(renderFingerprint(state, 'baseline'), limits),
    baselineCaptured: captured,
    baselineID: ctx.baselineId,
    clusterID: ctx.clusterId,
    createdAt: ctx.createdAt,
    deletedAt: null,
    hasDrift: evaluation.hasDrift,
    id: ctx.insightId,
    llmAnalysis: ctx.llmAnalysis,
    malicious: evaluation.malicious,
    ongoing: truncateFingerprint(renderFingerprint(state, 'ongoing'), limits),
    severity: evaluation.severity ?? 'negligible',
    state: !captured ? 'learning' : evaluation.hasDrift ? 'drift' : 'monitoring',
    summary: {
      container_meta: {
        container_id: state.container.id,
        container_image_digest: state.container.imageDigest,
        container_image_name: state.container.imageName,
        container_name: state.container.name,
        runtime_name: state.container.runtime,
      },
      createdAt: ctx.createdAt,
      deletedAt: null,
      kube_meta: {
        cluster_id: ctx.clusterId,
        container_name: state.container.name,
        namespace: state.kubernetes.namespace,
        node_name: state.kubernetes.node,
        pod_name: state.kubernetes.pod,
      },
    },
    updatedAt: ctx.updatedAt,
  };
}
