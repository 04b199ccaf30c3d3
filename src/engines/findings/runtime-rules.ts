/**
 * Runtime findings (type runtime_alert, source_type container) from the runtime insights of the
 * runtime engine (docs/runtime-events.md): a workload container that drifted from its learned
 * baseline, and one whose activity the analyser judged malicious. The group is the workload
 * container; its severity is the insight's.
 */
import {
  type FindingDraft,
  type FindingSeverity,
  isFindingSeverity,
  maxSeverity,
  type RuleDefinition,
} from './types.js';

export interface InsightFacts {
  insightId: string;
  workloadId: string;
  namespace: string;
  workloadKind: string;
  workloadName: string;
  containerName: string;
  containerId: string;
  severity: string;
  hasDrift: boolean;
  malicious: boolean;
}

const runtime = { type: 'runtime_alert', family: 'runtime' } as const;

export const RUNTIME_RULES = {
  drift: {
    ...runtime,
    id: 'RT-001',
    title: 'Runtime drift from the learned baseline',
    severity: 'medium',
    description: 'A container ran programs, opened files or made connections its baseline never saw.',
  },
  malicious: {
    ...runtime,
    id: 'RT-002',
    title: 'Malicious runtime activity',
    severity: 'high',
    description: "The runtime analyser judged a container's activity malicious (MITRE ATT&CK mapped).",
  },
} as const satisfies Record<string, RuleDefinition>;

export function runtimeFindings(clusterId: string, insights: readonly InsightFacts[]): FindingDraft[] {
  return insights.flatMap((insight) => {
    const graded: FindingSeverity = isFindingSeverity(insight.severity) ? insight.severity : 'medium';
    const source = {
      type: 'container' as const,
      kind: insight.workloadKind,
      id: insight.workloadId,
      name: insight.workloadName,
      namespace: insight.namespace,
      attrs: {
        container_name: insight.containerName,
        container_id: insight.containerId,
        workload_kind: insight.workloadKind,
        workload_name: insight.workloadName,
        insight_id: insight.insightId,
      },
    };
    const common = {
      clusterId,
      source,
      detailKey: '',
      fixAttrs: { insight_id: insight.insightId },
      ruleAttrs: { insight_id: insight.insightId, insight_severity: insight.severity },
    };
    const drafts: FindingDraft[] = [];
    if (insight.hasDrift) {
      drafts.push({
        ...common,
        rule: RUNTIME_RULES.drift,
        severity: graded,
        messages: [
          `container "${insight.containerName}" drifted from its baseline (insight ${insight.insightId})`,
        ],
      });
    }
    if (insight.malicious) {
      drafts.push({
        ...common,
        rule: RUNTIME_RULES.malicious,
        severity: maxSeverity(graded, RUNTIME_RULES.malicious.severity),
        messages: [
          `container "${insight.containerName}" shows malicious activity (insight ${insight.insightId})`,
        ],
      });
    }
    return drafts;
  });
}
