/** Risk and identity history across computations (what storage keeps). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type IdentityState, reconcileIdentity } from './lifecycle.js';

const T1 = '2025-01-01T00:00:00.000Z';
const T2 = '2025-01-02T00:00:00.000Z';
const T3 = '2025-01-03T00:00:00.000Z';

describe('reconcileIdentity', () => {
  test('a new identity with risks is open; each risk first and last detected now', () => {
    const state = reconcileIdentity(null, ['b', 'a'], T1);
    assert.deepEqual(state, {
      status: 'open',
      resolved_at: null,
      resolved_reason: null,
      deleted_at: null,
      risks: [
        { fingerprint: 'a', first_detected_at: T1, last_detected_at: T1, deleted_at: null },
        { fingerprint: 'b', first_detected_at: T1, last_detected_at: T1, deleted_at: null },
      ],
    });
  });

  test('a risk that disappears is resolved, not forgotten; the identity resolves when the last goes', () => {
    const first = reconcileIdentity(null, ['a', 'b'], T1);
    const second = reconcileIdentity(first, ['a'], T2);
    assert.equal(second.status, 'open');
    assert.deepEqual(second.risks, [
      { fingerprint: 'a', first_detected_at: T1, last_detected_at: T2, deleted_at: null },
      { fingerprint: 'b', first_detected_at: T1, last_detected_at: T1, deleted_at: T2 },
    ]);
    const third = reconcileIdentity(second, [], T3);
    assert.deepEqual(
      [third.status, third.resolved_at, third.resolved_reason, third.deleted_at],
      ['resolved', T3, 'risks_resolved', null],
    );
    assert.deepEqual(
      third.risks.map((risk) => [risk.fingerprint, risk.deleted_at]),
      [
        ['a', T3],
        ['b', T2],
      ],
    );
  });

  test('a risk that comes back is reopened with its first detection kept', () => {
    const resolved = reconcileIdentity(reconcileIdentity(null, ['a'], T1), [], T2);
    const reopened = reconcileIdentity(resolved, ['a'], T3);
    assert.deepEqual([reopened.status, reopened.resolved_at, reopened.resolved_reason], ['open', null, null]);
    assert.deepEqual(reopened.risks, [
      { fingerprint: 'a', first_detected_at: T1, last_detected_at: T3, deleted_at: null },
    ]);
  });

  test('an identity without risks is resolved from the start and stays so without churn', () => {
    const first = reconcileIdentity(null, [], T1);
    assert.deepEqual(
      [first.status, first.resolved_at, first.resolved_reason],
      ['resolved', T1, 'no_risks_detected'],
    );
    assert.deepEqual(reconcileIdentity(first, [], T2), first);
  });

  test('an identity gone from the cluster is resolved as deleted; if it returns it is live again', () => {
    const open = reconcileIdentity(null, ['a'], T1);
    const gone = reconcileIdentity(open, null, T2);
    assert.deepEqual(
      [gone.status, gone.resolved_at, gone.resolved_reason, gone.deleted_at, gone.risks[0]!.deleted_at],
      ['resolved', T2, 'identity_deleted', T2, T2],
    );
    assert.deepEqual(reconcileIdentity(gone, null, T3), gone, 'a second absence changes nothing');
    const back: IdentityState = reconcileIdentity(gone, [], T3);
    assert.deepEqual(
      [back.status, back.resolved_reason, back.deleted_at],
      ['resolved', 'no_risks_detected', null],
    );
  });
});
