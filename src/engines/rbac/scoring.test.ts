/** Scores, levels and the risks summary; monotonicity as a property, at unit and engine level. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { arbitraryCluster, arbitraryRule, withExtraRule } from './fixtures/arbitrary.js';
import { clusterRoleBinding, saSubject, userSubject } from './fixtures/builders.js';
import { compute } from './fixtures/harness.js';
import { RISK_RULES } from './risk-rules.js';
import { riskLevelOf, type ScoredRisk, scoreIdentity, severityOf } from './scoring.js';
import type { RiskType } from './types.js';

const TYPES = RISK_RULES.map((rule) => [rule.type, rule.weight] as const);
const scoredRisk: fc.Arbitrary<ScoredRisk> = fc
  .tuple(fc.constantFrom(...TYPES), fc.double({ min: 0.01, max: 1, noNaN: true }))
  .map(([[type, weight], factor]) => ({ type, weight, factor }));

describe('levels', () => {
  test('thresholds: Critical >= 85, High >= 60, Medium >= 30, Low >= 10, Negligible above 0; no risk is Unspecified', () => {
    const cases: [number, boolean, string][] = [
      [0, false, 'Unspecified'],
      [0.5, true, 'Negligible'],
      [9.99, true, 'Negligible'],
      [10, true, 'Low'],
      [29.99, true, 'Low'],
      [30, true, 'Medium'],
      [59.99, true, 'Medium'],
      [60, true, 'High'],
      [84.99, true, 'High'],
      [85, true, 'Critical'],
      [100, true, 'Critical'],
    ];
    for (const [score, hasRisks, level] of cases)
      assert.equal(riskLevelOf(score, hasRisks), level, String(score));
    assert.deepEqual([severityOf(10), severityOf(6), severityOf(0.5)], ['critical', 'high', 'negligible']);
  });
});

describe('scoreIdentity', () => {
  test('a single risk: the identity score is ten times the risk score and the level its severity', () => {
    const score = scoreIdentity([{ type: 'secrets_read', weight: 8, factor: 0.5 }]);
    assert.equal(score.risk_score, 40);
    assert.equal(score.risk_level, 'Medium');
    assert.deepEqual(score.risks_summary, {
      risks: [{ type: 'secrets_read', count: 1, weight: 8, normalized_weight: 1, score: 4 }],
      total_risk_score: 40,
      total_weight: 8,
    });
  });

  test('risks of one type combine without exceeding the weight; the next types count half, a quarter...', () => {
    const score = scoreIdentity([
      { type: 'secrets_read', weight: 8, factor: 0.5 },
      { type: 'secrets_read', weight: 8, factor: 0.5 },
      { type: 'pod_exec', weight: 7, factor: 1 },
      { type: 'unused_identity', weight: 2, factor: 1 },
    ]);
    // secrets: 8 x (1 - 0.5 x 0.5) = 6; sorted 7, 6, 2: 1 - (1 - 0.7)(1 - 0.3)(1 - 0.05) = 0.8005
    assert.deepEqual(
      score.risks_summary.risks.map((r) => [r.type, r.count, r.score, r.normalized_weight]),
      [
        ['pod_exec', 1, 7, 0.4118],
        ['secrets_read', 2, 6, 0.4706],
        ['unused_identity', 1, 2, 0.1176],
      ],
    );
    assert.equal(score.risk_score, 80.05);
    assert.equal(score.risks_summary.total_weight, 17);
    assert.deepEqual(score.risk_types, ['pod_exec', 'secrets_read', 'unused_identity']);
  });

  test('property: score within 0..100, normalized weights sum to 1, level agrees with the score', () => {
    fc.assert(
      fc.property(fc.array(scoredRisk, { maxLength: 20 }), (risks) => {
        const score = scoreIdentity(risks);
        assert.ok(score.risk_score >= 0 && score.risk_score <= 100);
        assert.equal(score.risk_level, riskLevelOf(score.risk_score, risks.length > 0));
        if (risks.length > 0) {
          const sum = score.risks_summary.risks.reduce((total, r) => total + r.normalized_weight, 0);
          assert.ok(Math.abs(sum - 1) < 0.001, String(sum));
        }
        assert.equal(
          score.risks_summary.risks.reduce((total, r) => total + r.count, 0),
          risks.length,
        );
      }),
    );
  });

  test('property: adding a risk or raising a factor never lowers the score', () => {
    fc.assert(
      fc.property(fc.array(scoredRisk, { maxLength: 15 }), scoredRisk, fc.nat(), (risks, extra, index) => {
        const before = scoreIdentity(risks).risk_score;
        assert.ok(scoreIdentity([...risks, extra]).risk_score >= before);
        if (risks.length > 0) {
          const raised = risks.map((risk, i) =>
            i === index % risks.length ? { ...risk, factor: Math.min(1, risk.factor * 1.5) } : risk,
          );
          assert.ok(scoreIdentity(raised).risk_score >= before);
        }
      }),
    );
  });
});

describe('engine monotonicity', () => {
  const scores = (objects: unknown[]) =>
    new Map(compute(objects).identities.map((identity) => [identity.id, identity.risk_score]));

  test('property: adding a rule to a role never lowers any identity risk score', () => {
    fc.assert(
      fc.property(arbitraryCluster, fc.nat(), arbitraryRule, (objects, index, extra) => {
        const widened = withExtraRule(objects, index, extra);
        fc.pre(widened !== null);
        const before = scores(objects);
        const after = scores(widened!);
        for (const [id, score] of before)
          assert.ok(after.get(id)! >= score, `${id}: ${score} -> ${after.get(id)}`);
      }),
      { numRuns: 150 },
    );
  });

  test('property: adding a binding never lowers any identity risk score', () => {
    const role = fc.constantFrom('r1', 'r2', 'r3', 'cluster-admin');
    const subject = fc.oneof(fc.constant(userSubject('alice')), fc.constant(saSubject('a', 's1')));
    fc.assert(
      fc.property(arbitraryCluster, role, subject, (objects, roleName, who) => {
        const before = scores(objects);
        const after = scores([...objects, clusterRoleBinding('added', roleName, [who])]);
        for (const [id, score] of before)
          assert.ok(after.get(id)! >= score, `${id}: ${score} -> ${after.get(id)}`);
      }),
      { numRuns: 100 },
    );
  });
});

test('every rule type is scored with its documented weight', () => {
  const weights = new Map<RiskType, number>(TYPES);
  assert.equal(weights.size, 15);
  assert.equal(weights.get('cluster_admin'), 10);
  assert.ok([...weights.values()].every((weight) => weight >= 1 && weight <= 10));
});
