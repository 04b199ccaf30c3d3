/**
 * The rows a workload container's new state yields: its captured baseline and its insight. Ids are
 * derived from what they identify, so a retried or replayed computation lands on the same rows.
 */
import { createHash } from 'node:crypto';
import {
  type AnalysisRecord,
  analyseWithRules,
  evaluateInsight,
  type Fingerprint,
  renderFingerprint,
  SEVERITIES,
  type WorkloadContainerState,
} from '../../engines/runtime/index.js';
import { stableId } from '../../ingest/kubernetes/inventory.js';
import type { BaselineRow } from './baseline-repository.js';
import { runtimeNameOf } from './container-ids.js';
import type { InsightHead, InsightSummaryJson, InsightWrite } from './insight-repository.js';

export const workloadIdOf = (accountId: string, workloadKey: string): string =>
  stableId('runtime-workload', accountId, workloadKey);
export const insightIdOf = (workloadId: string): string => stableId('runtime-insight', workloadId);
export const baselineIdOf = (workloadId: string, capturedAt: string): string =>
  stableId('runtime-baseline', workloadId, capturedAt);

export interface DerivedContext {
  accountId: string;
  clusterId: string;
  workloadId: string;
  /** the container id as the inventory holds it (a Falco short id completed where possible) */
  containerId: string;
  now: Date;
}

/** The fingerprint as the API shows it: the container named by its inventory id. */
export function apiFingerprint(
  state: WorkloadContainerState,
  which: 'baseline' | 'ongoing',
  containerId: string,
): Fingerprint {
  const fingerprint = renderFingerprint(state, which);
  return { ...fingerprint, containers: fingerprint.containers.map((c) => ({ ...c, id: containerId })) };
}

export function baselineRow(
  state: WorkloadContainerState,
  ctx: DerivedContext,
  window: { seconds: number; maxEvents: number | null },
  createdBy: string,
): BaselineRow {
  const capturedAt = state.baselineCapturedAt!;
  const learned = state.baseline;
  const rule =
    window.maxEvents === null ? `${window.seconds} s` : `${window.seconds} s or ${window.maxEvents} events`;
  return {
    id: baselineIdOf(ctx.workloadId, capturedAt),
    workload_id: ctx.workloadId,
    cluster_id: ctx.clusterId,
    namespace: state.key.namespace,
    workload_kind: state.key.workloadKind,
    workload_name: state.key.workloadName,
    container_name: state.key.containerName,
    container_id: ctx.containerId,
    image_name: state.container.imageName,
    notes:
      `Learned from ${learned.eventCount} events between ${learned.startedAt ?? capturedAt} and ` +
      `${capturedAt} (learning window: ${rule}).`,
    fingerprint: apiFingerprint(state, 'baseline', ctx.containerId),
    created_at: capturedAt,
    created_by: createdBy,
  };
}

/** What the analysis depends on: the distinct signals and the verdict, not their counts. */
export function analysisDigest(state: WorkloadContainerState, severity: string, malicious: boolean): string {
  const signals = Object.keys(state.signals).sort();
  return createHash('sha256')
    .update(JSON.stringify([signals, severity, malicious, state.baselineCapturedAt]))
    .digest('hex');
}

function summaryOf(state: WorkloadContainerState, ctx: DerivedContext): InsightSummaryJson {
  const { container, kubernetes } = state;
  return {
    container_meta: {
      container_id: ctx.containerId,
      container_image_digest: container.imageDigest,
      container_image_name: container.imageName,
      container_name: container.name,
      runtime_name: container.runtime || runtimeNameOf(container.id),
    },
    kube_meta: {
      cluster_id: ctx.clusterId,
      container_name: container.name,
      namespace: kubernetes.namespace,
      node_name: kubernetes.node,
      pod_name: kubernetes.pod,
    },
  };
}

/** The insight row of a state that raises one, with its rule-based analysis. */
export function insightWrite(
  state: WorkloadContainerState,
  ctx: DerivedContext,
  head: InsightHead | undefined,
): InsightWrite {
  const id = insightIdOf(ctx.workloadId);
  const now = ctx.now.toISOString();
  const createdAt = head ? head.created_at.toISOString() : now;
  const record: AnalysisRecord = {
    ...analyseWithRules(state, {
      accountId: ctx.accountId,
      clusterId: ctx.clusterId,
      insightId: id,
      analysisId: stableId('runtime-analysis', id),
      now,
    }),
    createdAt,
  };
  // The same evaluation buildRuntimeInsight makes when the insight is read (insight-service.ts),
  // without rendering fingerprints on every push.
  const evaluation = evaluateInsight(state);
  const severity = evaluation.severity ?? 'negligible';
  const captured = state.baselineCapturedAt;
  return {
    id,
    workload_id: ctx.workloadId,
    cluster_id: ctx.clusterId,
    baseline_id: captured ? baselineIdOf(ctx.workloadId, captured) : null,
    container_id: ctx.containerId,
    namespace: state.key.namespace,
    workload_kind: state.key.workloadKind,
    workload_name: state.key.workloadName,
    container_name: state.key.containerName,
    severity,
    severity_rank: SEVERITIES.indexOf(severity),
    state: captured === null ? 'learning' : evaluation.hasDrift ? 'drift' : 'monitoring',
    has_drift: evaluation.hasDrift,
    malicious: evaluation.malicious,
    baseline_captured: captured !== null,
    summary: summaryOf(state, ctx),
    analysis: [record],
    analysis_digest: analysisDigest(state, severity, evaluation.malicious),
    created_at: createdAt,
    updated_at: now,
  };
}
