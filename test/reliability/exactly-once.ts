/**
 * The invariant of the kill tests, checked through the API of a server running on the store after
 * the crashes: every acknowledged push is stored exactly once.
 *
 * - its acknowledgement is the answer of its first application (every object `created`): a retry
 *   that re-ran an already committed push would have answered `unchanged` instead;
 * - each of its objects has exactly one record (one version, live, not overwritten), and the
 *   cluster holds no record that no push sent;
 * - each pod gave exactly one inventory container (the push's derived rows are not doubled);
 * - its Idempotency-Key still replays that same answer, marked `Idempotent-Replayed`.
 */
import assert from 'node:assert/strict';
import { containerCount, sendPush, storedRecords, type Tenant } from './client.js';
import type { PushState } from './push-driver.js';

export async function assertExactlyOnce(
  url: string,
  tenant: Tenant,
  states: readonly PushState[],
): Promise<void> {
  const unacknowledged = states.filter((state) => !state.ack).map((state) => state.push.index);
  assert.deepEqual(unacknowledged, [], 'every push is acknowledged in the end');
  for (const state of states) {
    assert.equal(
      state.ack?.created,
      state.push.uids.length,
      `push ${state.push.index}: acknowledged as stored once`,
    );
    assert.equal(state.ack?.unchanged, 0, `push ${state.push.index}: its answer is its first application's`);
  }

  const expected = new Set(states.flatMap((state) => state.push.uids));
  const seen = new Map<string, number>();
  for (const record of await storedRecords(url, tenant)) {
    assert.ok(expected.has(record.uid), `record ${record.id} comes from no push`);
    assert.equal(record.deleted_at, null, `record ${record.id} is live`);
    assert.equal(record.version_overwritten_at, null, `record ${record.id} is the only version`);
    seen.set(record.uid, (seen.get(record.uid) ?? 0) + 1);
  }
  const duplicated = [...seen].filter(([, count]) => count > 1).map(([uid]) => uid);
  assert.deepEqual(duplicated, [], 'no object has two records');
  const missing = [...expected].filter((uid) => !seen.has(uid));
  assert.deepEqual(missing, [], 'every acknowledged object is stored');
  assert.equal(await containerCount(url, tenant), states.length, 'one inventory container per pushed pod');

  // Replays, a few at a time: each key answers what it acknowledged, and changes nothing.
  const queue = [...states];
  const replay = async () => {
    for (let state = queue.shift(); state; state = queue.shift()) {
      const outcome = await sendPush(url, tenant, state.push, 30_000);
      assert.equal(outcome.kind, 'acked', `push ${state.push.index} replay: ${JSON.stringify(outcome)}`);
      if (outcome.kind !== 'acked') return;
      assert.equal(outcome.replayed, true, `push ${state.push.index}: the key replays`);
      assert.deepEqual(
        outcome.body,
        state.ack,
        `push ${state.push.index}: the replay is the acknowledged answer`,
      );
    }
  };
  await Promise.all([replay(), replay(), replay(), replay()]);
  assert.equal((await storedRecords(url, tenant)).length, expected.size, 'replays stored nothing');
}
