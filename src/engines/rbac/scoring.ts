/**
 * Scores and levels (docs/identity-risk.md, "Scoring").
 *
 * - A risk scores `weight x factor`, where factor (0..1] is its share of the rule's danger:
 *   scope (cluster-wide 1, one namespace 0.5), resourceNames restrictions and the like.
 * - A risk type scores `weight x (1 - prod(1 - factor_i))` over its risks: a second namespace adds
 *   to the first, yet the type never exceeds its weight.
 * - The identity's risk_score (0..100) combines the type scores s sorted from the largest:
 *   `100 x (1 - prod_i(1 - s_i / (10 x 2^i)))`. The worst type counts fully, the next half, the
 *   next a quarter: breadth raises the score, but many small risks cannot reach one big one.
 *   It never decreases when a permission is added (sorted assignment of the decreasing weights
 *   maximizes the combination, and a maximum of increasing functions is increasing).
 * - risk_level follows the score through LEVEL_THRESHOLDS; an identity without risks is
 *   `Unspecified` (nothing to rate).
 */
import { round2 } from './order.js';
import type { RiskLevel, RisksSummary, RiskType, RiskTypeSummary, Severity } from './types.js';

export const MAX_WEIGHT = 10;

/** Lowest score of each level, from the highest. */
export const LEVEL_THRESHOLDS: readonly { level: Exclude<RiskLevel, 'Unspecified'>; min: number }[] = [
  { level: 'Critical', min: 85 },
  { level: 'High', min: 60 },
  { level: 'Medium', min: 30 },
  { level: 'Low', min: 10 },
  { level: 'Negligible', min: 0 },
];

export function riskLevelOf(score: number, hasRisks: boolean): RiskLevel {
  if (!hasRisks) return 'Unspecified';
  return LEVEL_THRESHOLDS.find(({ min }) => score >= min)?.level ?? 'Negligible';
}

/** Severity of one risk (or resource) scoring `score` out of MAX_WEIGHT: the level it alone gives. */
export function severityOf(score: number): Severity {
  return riskLevelOf((score / MAX_WEIGHT) * 100, true).toLowerCase() as Severity;
}

const round4 = (value: number): number => Math.round(value * 10_000) / 10_000;

export interface ScoredRisk {
  type: RiskType;
  weight: number;
  /** Share of the weight, 0 < factor <= 1. */
  factor: number;
}

export interface IdentityScore {
  risk_score: number;
  risk_level: RiskLevel;
  risk_types: RiskType[];
  risks_summary: RisksSummary;
}

export function scoreIdentity(risks: readonly ScoredRisk[]): IdentityScore {
  const byType = new Map<RiskType, { weight: number; count: number; remaining: number }>();
  for (const risk of risks) {
    const entry = byType.get(risk.type) ?? { weight: risk.weight, count: 0, remaining: 1 };
    entry.count += 1;
    entry.remaining *= 1 - Math.min(1, Math.max(0, risk.factor));
    byType.set(risk.type, entry);
  }
  const types = [...byType.entries()].map(([type, { weight, count, remaining }]) => ({
    type,
    weight,
    count,
    score: weight * (1 - remaining),
  }));
  const totalWeight = types.reduce((sum, type) => sum + type.weight, 0);

  const scores = types.map((type) => type.score).sort((a, b) => b - a);
  let remaining = 1;
  scores.forEach((score, rank) => {
    remaining *= 1 - score / (MAX_WEIGHT * 2 ** rank);
  });
  const riskScore = round2(100 * (1 - remaining));

  const summaries: RiskTypeSummary[] = types
    .sort((a, b) => b.score - a.score || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
    .map((type) => ({
      type: type.type,
      count: type.count,
      weight: type.weight,
      normalized_weight: round4(type.weight / totalWeight),
      score: round2(type.score),
    }));
  return {
    risk_score: riskScore,
    risk_level: riskLevelOf(riskScore, risks.length > 0),
    risk_types: summaries.map((summary) => summary.type).sort(),
    risks_summary: { risks: summaries, total_risk_score: riskScore, total_weight: totalWeight },
  };
}
