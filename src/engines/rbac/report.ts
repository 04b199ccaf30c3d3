/**
 * The identities report (#18) from the current identities of an account: counts and maps of the
 * description. Storage adds id, account_id and created_at. Callers pass live identities with
 * their open risks only (deleted identities and resolved risks are history, not posture).
 *
 * Maps whose keys are a closed set (levels, identity types, risk types) list every key, zeros
 * included, so a dashboard needs no special case; maps per source list the clusters present.
 *
 * Every figure is a sum over sources (averages are sums divided at the end), so the report is
 * built from one tally per source: `buildIdentitiesReport` tallies a list of identities,
 * ingestion adds up the tallies it keeps per cluster.
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
  const add = (key: string, amount = 1) => counts.set(key, (counts.get(key) ?? 0) + amount);
  return {
    add,
    /** Adds another count's entries (a tally's map) to this one's. */
    addAll: (other: Record<string, number>) => {
      for (const [key, amount] of Object.entries(other)) add(key, amount);
    },
    /** A plain object with sorted keys (JSON key order is insertion order). */
    toObject: () => Object.fromEntries(sortBy(counts.entries(), ([key]) => [key])),
  };
}

/**
 * What one source's (cluster's) live identities add to the report: sums, so the report of an
 * account is its clusters' tallies added up. Ingestion keeps one per cluster (migration 0059,
 * `identity_report_tally`, computes the same from the stored rows), so a push re-reads its own
 * cluster only, however many clusters the account has (docs/performance.md, "Fix 59").
 */
export interface IdentitiesTally {
  identities: number;
  identities_with_risks: number;
  risks: number;
  score_sum: number;
  per_level: Record<string, number>;
  per_type: Record<string, number>;
  /** identities with at least one open risk of the type */
  per_risk: Record<string, number>;
  risks_per_identity_type: Record<string, number>;
  risks_per_type: Record<string, number>;
}

/** The tally of some identities of one source; a map lists only the keys counted. */
export function tallyIdentities(identities: readonly Omit<ReportIdentity, 'source_id'>[]): IdentitiesTally {
  const perLevel = counter();
  const perType = counter();
  const perRisk = counter();
  const risksPerIdentityType = counter();
  const risksPerType = counter();
  let withRisks = 0;
  let risks = 0;
  let scoreSum = 0;
  for (const identity of identities) {
    perLevel.add(identity.risk_level);
    perType.add(identity.type);
    scoreSum += identity.risk_score;
    if (identity.risks.length === 0) continue;
    withRisks += 1;
    risks += identity.risks.length;
    risksPerIdentityType.add(identity.type, identity.risks.length);
    for (const type of new Set(identity.risks.map((risk) => risk.type))) perRisk.add(type);
    for (const risk of identity.risks) risksPerType.add(risk.type);
  }
  return {
    identities: identities.length,
    identities_with_risks: withRisks,
    risks,
    score_sum: scoreSum,
    per_level: perLevel.toObject(),
    per_type: perType.toObject(),
    per_risk: perRisk.toObject(),
    risks_per_identity_type: risksPerIdentityType.toObject(),
    risks_per_type: risksPerType.toObject(),
  };
}

/** The report of the sources whose tallies these are; a source without identities is not listed. */
export function reportFromTallies(
  tallies: readonly { source_id: string; tally: IdentitiesTally }[],
  now: Date | string,
): IdentitiesReport {
  const at = new Date(now);
  if (Number.isNaN(at.getTime())) throw new RangeError(`reportFromTallies: invalid now ${String(now)}`);
  const riskTypes = RISK_RULES.map((rule) => rule.type);
  const perLevel = counter(RISK_LEVELS);
  const perRisk = counter(riskTypes);
  const perSource = counter();
  const perType = counter(IDENTITY_TYPES);
  const risksPerIdentityType = counter(IDENTITY_TYPES);
  const risksPerSource = counter();
  const risksPerType = counter(riskTypes);

  let count = 0;
  let risksCount = 0;
  let withRisks = 0;
  let scoreSum = 0;
  for (const { source_id, tally } of tallies) {
    if (tally.identities === 0) continue;
    perSource.add(source_id, tally.identities);
    risksPerSource.add(source_id, tally.risks);
    perLevel.addAll(tally.per_level);
    perType.addAll(tally.per_type);
    perRisk.addAll(tally.per_risk);
    risksPerIdentityType.addAll(tally.risks_per_identity_type);
    risksPerType.addAll(tally.risks_per_type);
    count += tally.identities;
    risksCount += tally.risks;
    withRisks += tally.identities_with_risks;
    scoreSum += tally.score_sum;
  }
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

/** The report of these identities, of any sources. */
export function buildIdentitiesReport(
  identities: readonly ReportIdentity[],
  now: Date | string,
): IdentitiesReport {
  const bySource = new Map<string, ReportIdentity[]>();
  for (const identity of identities) {
    const ofSource = bySource.get(identity.source_id);
    if (ofSource) ofSource.push(identity);
    else bySource.set(identity.source_id, [identity]);
  }
  return reportFromTallies(
    [...bySource].map(([source_id, ofSource]) => ({ source_id, tally: tallyIdentities(ofSource) })),
    now,
  );
}
