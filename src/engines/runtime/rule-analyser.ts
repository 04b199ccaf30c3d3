/**
 * The default analyser: turns a workload container's signals into the description's analysis
 * record (description, remediation, severity, category, ATT&CK tactics and techniques, malicious
 * process ids) without any outside service. An insight is `malicious` when a rule says so
 * (reverse shell, miner, dropped binary executed) or when credential access and an outbound
 * transfer both happened (a kill chain); its severity is then critical.
 *
 * @example
 *   const record = analyseWithRules(state, { accountId, clusterId, insightId, analysisId, now });
 */
import { type TacticRef, type TechniqueRef, tacticRefs, techniqueLink, techniqueRefs } from './mitre.js';
import { CREDENTIAL_RULES, EGRESS_RULES, RULES, type RuleId } from './rule-catalog.js';
import { maxSeverity, type Severity, severityRank } from './severity.js';
import type { Signal, WorkloadContainerState } from './state.js';

export interface AnalysisRecord {
  accountID: string;
  action: string;
  category: string;
  clusterID: string;
  createdAt: string;
  deletedAt: string | null;
  description: string;
  falsePositive: boolean;
  falsePositiveMatchedRules: string[];
  falsePositiveReason: string;
  id: string;
  insightID: string;
  insightIDs: string[];
  llmProvider: string;
  maliciousProcessIDs: string[];
  mitreAttackTactics: TacticRef[];
  mitreAttackTechniques: TechniqueRef[];
  model: string;
  partial: boolean;
  prompt: string;
  promptDigest: string;
  refs: string[];
  remediation: string;
  severity: Severity;
  stale: boolean;
  status: string;
  totalRequests: number;
  triggeredBy: string;
  updatedAt: string;
}

export interface AnalysisContext {
  accountId: string;
  clusterId: string;
  insightId: string;
  analysisId: string;
  now: string;
}

export interface InsightEvaluation {
  hasDrift: boolean;
  /** null when nothing happened that deserves an insight */
  severity: Severity | null;
  malicious: boolean;
  /** credential access and outbound transfer both seen */
  killChain: boolean;
  /** most severe first */
  signals: Signal[];
}

export function evaluateInsight(state: WorkloadContainerState): InsightEvaluation {
  const signals = Object.values(state.signals).sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      b.count - a.count ||
      a.firstSeen.localeCompare(b.firstSeen),
  );
  const hasDrift = state.ongoing.driftEvents > 0;
  const killChain =
    signals.some((s) => CREDENTIAL_RULES.has(s.rule)) && signals.some((s) => EGRESS_RULES.has(s.rule));
  const malicious = killChain || signals.some((s) => s.malicious);
  const severity = malicious
    ? 'critical'
    : (maxSeverity(signals.map((s) => s.severity)) ?? (hasDrift ? 'low' : null));
  return { hasDrift, severity, malicious, killChain, signals };
}

const MAX_DESCRIBED = 8;

function describe(state: WorkloadContainerState, evaluation: InsightEvaluation): string {
  const { key, kubernetes } = state;
  const where = `Container ${key.containerName} of ${key.workloadKind} ${key.namespace}/${key.workloadName} (pod ${kubernetes.pod})`;
  const since = state.baselineCapturedAt
    ? `did what its baseline, captured ${state.baselineCapturedAt}, does not cover`
    : 'raised alerts while its baseline was still being learned';
  const facts = evaluation.signals
    .slice(0, MAX_DESCRIBED)
    .map((s) => `${s.detail}${s.count > 1 ? ` (${s.count} times)` : ''} [${s.severity}]`);
  const more =
    evaluation.signals.length > MAX_DESCRIBED ? ` and ${evaluation.signals.length - MAX_DESCRIBED} more` : '';
  const verdict = evaluation.killChain
    ? 'Credential access followed by an outbound transfer: likely a compromise. '
    : evaluation.malicious
      ? 'A rule for known-malicious behaviour matched. '
      : '';
  return `${verdict}${where} ${since}: ${facts.join('; ')}${more}.`;
}

function processIdsOf(signals: Signal[], minimum: Severity): string[] {
  const ids = signals
    .filter((s) => s.malicious || severityRank(s.severity) >= severityRank(minimum))
    .flatMap((s) => s.processIds);
  return [...new Set(ids)];
}

export function analyseWithRules(state: WorkloadContainerState, ctx: AnalysisContext): AnalysisRecord {
  const evaluation = evaluateInsight(state);
  const signals = evaluation.signals;
  const severity = evaluation.severity ?? 'negligible';
  const techniques = techniqueRefs(signals.flatMap((s) => s.techniques));
  const tactics = tacticRefs([
    ...signals.flatMap((s) => s.tactics),
    ...techniques.flatMap((t) => t.tactics.map((x) => x.id)),
  ]);
  const remediation = [
    ...new Set(signals.map((s) => RULES[s.rule as RuleId]?.remediation ?? RULES.new_program.remediation)),
  ];
  const dropped = state.baseline.dropped;
  const droppedOngoing = state.ongoing.dropped;
  const partial =
    state.droppedSignals > 0 ||
    Object.values(dropped).some((n) => n > 0) ||
    Object.values(droppedOngoing).some((n) => n > 0);
  return {
    accountID: ctx.accountId,
    action: evaluation.malicious
      ? 'terminate_pod'
      : severityRank(severity) >= severityRank('high')
        ? 'investigate'
        : 'review',
    category: signals[0]?.category ?? 'drift',
    clusterID: ctx.clusterId,
    createdAt: ctx.now,
    deletedAt: null,
    description: signals.length > 0 ? describe(state, evaluation) : 'No activity outside the baseline.',
    falsePositive: false,
    falsePositiveMatchedRules: [],
    falsePositiveReason: '',
    id: ctx.analysisId,
    insightID: ctx.insightId,
    insightIDs: [ctx.insightId],
    llmProvider: '',
    maliciousProcessIDs: evaluation.malicious ? processIdsOf(signals, 'high') : [],
    mitreAttackTactics: tactics,
    mitreAttackTechniques: techniques,
    model: '',
    partial,
    prompt: '',
    promptDigest: '',
    refs: techniques.map((t) => techniqueLink(t.id)),
    remediation: remediation.join(' '),
    severity,
    stale: false,
    status: 'completed',
    totalRequests: 0,
    triggeredBy: evaluation.hasDrift ? 'drift' : 'alert',
    updatedAt: ctx.now,
  };
}
