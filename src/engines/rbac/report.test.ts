/** The identities report (#18) from a list of identities. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterRoleBinding, groupSubject, serviceAccount, userSubject } from './fixtures/builders.js';
import { compute } from './fixtures/harness.js';
import { buildIdentitiesReport } from './report.js';

test('counts, averages and maps of the identities and their risks', () => {
  const { identities } = compute([
    serviceAccount('shop', 'idle'),
    clusterRoleBinding('ops', 'cluster-admin', [userSubject('alice')]),
    clusterRoleBinding('devs', 'view', [groupSubject('devs')]),
  ]);
  const second = compute([serviceAccount('shop', 'idle')]).identities.map((identity) => ({
    ...identity,
    source_id: 'other',
  }));
  const report = buildIdentitiesReport([...identities, ...second], '2025-03-01T17:45:00Z');
  const alice = identities.find((identity) => identity.name === 'alice')!;
  // cluster-admin was not pushed: only the name-based cluster_admin rule can see the binding.
  const aliceRisks = alice.risks.length;
  assert.equal(aliceRisks, 1);

  assert.deepEqual([report.year, report.month, report.day, report.hour], [2025, 3, 1, 17]);
  assert.equal(report.identities_count, 4);
  assert.equal(report.identities_with_risks_count, 3, 'alice and the two idle accounts; devs has none');
  assert.equal(report.risks_count, aliceRisks + 2);
  assert.equal(report.avg_risks_per_identity, Math.round(((aliceRisks + 2) / 4) * 100) / 100);
  assert.equal(report.avg_risk_score, Math.round(((100 + 5 + 5 + 0) / 4) * 100) / 100);
  assert.deepEqual(report.identity_counts_per_level, {
    Critical: 1,
    High: 0,
    Low: 0,
    Medium: 0,
    Negligible: 2,
    Unspecified: 1,
  });
  assert.deepEqual(report.identity_counts_per_type, { k8s_group: 1, k8s_service_account: 2, k8s_user: 1 });
  assert.deepEqual(report.identity_counts_per_source, { [alice.source_id]: 3, other: 1 });
  assert.deepEqual(report.risk_counts_per_source, { [alice.source_id]: aliceRisks + 1, other: 1 });
  assert.deepEqual(report.risk_counts_per_identity_type, {
    k8s_group: 0,
    k8s_service_account: 2,
    k8s_user: aliceRisks,
  });
  assert.equal(report.identity_counts_per_risk.unused_identity, 2);
  assert.equal(report.identity_counts_per_risk.cluster_admin, 1);
  assert.equal(report.risk_counts_per_type.unused_identity, 2);
  assert.equal(Object.keys(report.risk_counts_per_type).length, 15, 'every rule type listed, zeros included');
  assert.equal(report.risk_counts_per_type.csr_approve, 0);
  assert.equal(report.identity_counts_per_risk.broad_group_binding, 0);
});

test('an account without identities gets zeros, not NaN', () => {
  const report = buildIdentitiesReport([], '2025-01-01T00:00:00Z');
  assert.deepEqual(
    [report.identities_count, report.avg_risk_score, report.avg_risks_per_identity],
    [0, 0, 0],
  );
  assert.deepEqual(report.identity_counts_per_source, {});
  assert.throws(() => buildIdentitiesReport([], 'not a time'), RangeError);
});
