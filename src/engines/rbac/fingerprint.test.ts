/** Determinism: same cluster in any order gives the same output; fingerprints ignore time and uids. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { riskFingerprint } from './fingerprint.js';
import { arbitraryCluster } from './fixtures/arbitrary.js';
import { clusterRole, clusterRoleBinding, roleBinding, rule, userSubject } from './fixtures/builders.js';
import { defaultCluster } from './fixtures/default-cluster.js';
import { compute, identityIn, oneRisk } from './fixtures/harness.js';

const fingerprints = (objects: unknown[], now?: string) =>
  compute(objects, now).identities.flatMap((identity) => identity.risks.map((risk) => risk.fingerprint));

describe('fingerprints', () => {
  test('property: shuffling the input objects changes nothing in the output, fingerprints included', () => {
    fc.assert(
      fc.property(
        arbitraryCluster.chain((objects) =>
          fc.tuple(fc.constant(objects), fc.shuffledSubarray(objects, { minLength: objects.length })),
        ),
        ([objects, shuffled]) => {
          assert.deepEqual(compute(shuffled), compute(objects));
        },
      ),
      { numRuns: 150 },
    );
  });

  test('property: fingerprints do not depend on the time of the computation', () => {
    fc.assert(
      fc.property(arbitraryCluster, (objects) => {
        assert.deepEqual(
          fingerprints(objects, '2025-01-01T00:00:00Z'),
          fingerprints(objects, '2026-06-30T23:59:59Z'),
        );
      }),
      { numRuns: 50 },
    );
  });

  test('recreated objects (new uids and resource versions) keep the fingerprints', () => {
    const objects = [...defaultCluster(), clusterRoleBinding('ops', 'cluster-admin', [userSubject('alice')])];
    const recreated = objects.map((object) => ({
      ...object,
      metadata: { ...(object.metadata as object), uid: `new-${Math.random()}`, resourceVersion: '999' },
    }));
    assert.deepEqual(fingerprints(recreated), fingerprints(objects));
    assert.ok(fingerprints(objects).length > 10);
  });

  test('a different binding granting the same thing is a different risk; the identity and type are hashed too', () => {
    const reader = clusterRole('reader', [rule('', 'secrets', 'get')]);
    const first = oneRisk(
      [reader, clusterRoleBinding('a', 'reader', [userSubject('alice')])],
      'user',
      'alice',
      'secrets_read',
    );
    const second = oneRisk(
      [reader, clusterRoleBinding('b', 'reader', [userSubject('alice')])],
      'user',
      'alice',
      'secrets_read',
    );
    assert.notEqual(first.fingerprint, second.fingerprint);
    assert.notEqual(first.id, second.id);
    const inNamespace = oneRisk(
      [reader, roleBinding('x', 'a', 'reader', [userSubject('alice')], 'ClusterRole')],
      'user',
      'alice',
      'secrets_read',
    );
    assert.notEqual(inNamespace.fingerprint, first.fingerprint);
    assert.notEqual(
      riskFingerprint('id-1', 'secrets_read', '', ['k']),
      riskFingerprint('id-2', 'secrets_read', '', ['k']),
    );
    assert.notEqual(
      riskFingerprint('id-1', 'secrets_read', '', ['k']),
      riskFingerprint('id-1', 'pod_exec', '', ['k']),
    );
    assert.equal(riskFingerprint('i', 't', '', ['a', 'b']), riskFingerprint('i', 't', '', ['b', 'a']));
  });

  test('fingerprints are unique within a computation', () => {
    const all = fingerprints([
      ...defaultCluster(),
      clusterRoleBinding('ops', 'edit', [userSubject('alice')]),
    ]);
    assert.equal(new Set(all).size, all.length);
    const alice = identityIn(
      compute([clusterRoleBinding('ops', 'cluster-admin', [userSubject('alice')])]),
      'user',
      'alice',
    );
    assert.match(alice.risks[0]!.fingerprint, /^[0-9a-f]{64}$/);
  });
});
