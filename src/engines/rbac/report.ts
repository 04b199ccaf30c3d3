/**
 * The identities report (#18) from the current identities of an account: counts and maps of the
 * description. Storage adds id, account_id and created_at. Callers pass live identities with
 * their open risks only (deleted identities and resolved risks are history, not posture).
 *
 * Maps whose keys are a closed set (levels, identity types, risk types) list every key, zeros
 * included, so a dashboard needs no special case; maps per source list the clusters present.
 */
import { sortBy } from './order.js';
import { RISK_RULES } from './risk-rules.js';
import type { IdentityType, RiskLevel } from './types.js';

export interface ReportIdentity {
  type: IdentityType;
  source_id: string;
  risk_score: number;
  risk_level: RiskLevel;
  risks: readonly { type: string }[];
}

export interface IdentitiesReport {
  year: number;
  month: number;
  day: number;
  hour: number;
  identities_count: number;
  identities_with_risks_count: number;
  risks_count: number;
  avg_risk_score: number;
  avg_risks_per_identity: number;
  identity_counts_per_level: Record<string, number>;
  identity_counts_per_risk: Record<string, number>;
  identity_counts_per_source: Record<string, number>;
  identity_counts_per_type: Record<string, number>;
  risk_counts_per_identity_type: Record<string, number>;
  risk_counts_per_source: Record<string, number>;
  risk_counts_per_type: Record<string, number>;
}

export const RISK_LEVELS: readonly RiskLevel[] = [
  'Critical',
  'High',
  'Medium',
  'Low',
  'Negligible',
  'Unspecified',
];
export const IDENTITY_TYPES: readonly IdentityType[] = ['k8s_group', 'k8s_service_account', 'k8s_user'];

const round2 = (value: number): number => Math.round(value * 100) / 100;

function counter(keys: readonly string[] = []) {
  const counts = new Map<string, number>(keys.map((key) => [key, 0]));
  return {
    add: (key: string, amount = 1) => counts.set(key, (counts.get(key) ?? 0) + amount),
    /** A plain object with sorted keys (JSON key order is insertion order). */
    toObject: () => Object.fromEntries(sortBy(counts.entries(), ([key]) => [key])),
  };
}

export function buildIdentitiesReport(
  identities: readonly ReportIdentity[],
  now: Date | string,
): IdentitiesReport {
  const at = new Date(now);
  if (Number.isNaN(at.getTime())) throw new RangeError(`buildIdentitiesReport: invalid now ${String(now)}`);
  const riskTypes = RISK_RULES.map((rule) => rule.type);
  const perLevel = counter(RISK_LEVELS);
  const perRisk = counter(riskTypes);
  const perSource = counter();
  const perType = counter(IDENTITY_TYPES);
  const risksPerIdentityType = counter(IDENTITY_TYPES);
  const risksPerSource = counter();
  const risksPerType = counter(riskTypes);

  let risksCount = 0;
  let withRisks = 0;
  let scoreSum = 0;
  for (const identity of identities) {
    perLevel.add(identity.risk_level);
    perSource.add(identity.source_id);
    perType.add(identity.type);
    risksPerIdentityType.add(identity.type, identity.risks.length);
    risksPerSource.add(identity.source_id, identity.risks.length);
    for (const type of new Set(identity.risks.map((risk) => risk.type))) perRisk.add(type);
    for (const risk of identity.risks) risksPerType.add(risk.type);
    risksCount += identity.risks.length;
    if (identity.risks.length > 0) withRisks += 1;
    scoreSum += identity.risk_score;
  }
  const count = identities.length;
  return {
    year: at.getUTCFullYear(),
    month: at.getUTCMonth() + 1,
    day: at.getUTCDate(),
    hour: at.getUTCHours(),
    identities_count: count,
    identities_with_risks_count: withRisks,
    risks_count: risksCount,
    avg_risk_score: count === 0 ? 0 : round2(scoreSum / count),
    avg_risks_per_identity: count === 0 ? 0 : round2(risksCount / count),
    identity_counts_per_level: perLevel.toObject(),
    identity_counts_per_risk: perRisk.toObject(),
    identity_counts_per_source: perSource.toObject(),
    identity_counts_per_type: perType.toObject(),
    risk_counts_per_identity_type: risksPerIdentityType.toObject(),
    risk_counts_per_source: risksPerSource.toObject(),
    risk_counts_per_type: risksPerType.toObject(),
  };
}
