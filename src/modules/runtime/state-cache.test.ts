/**
 * The runtime state cache: what it gives back, what it forgets, and, against the database, that a
 * push never advances a state older than its row (another writer changed it, or a rolled-back push
 * advanced the copy it took).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import {
  exec,
  pushOk,
  putSettings,
  type RuntimeTarget,
  SAMPLE_TRUSTED_PREFIXES,
  sampleRuntimeText,
  WEB,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';
import type { WorkloadContainerState } from '../../engines/runtime/index.js';
import { applyRuntimePush } from './apply-push.js';
import { lockRuntimeOfCluster } from './ingest-service.js';
import { loadRuntimeSettings } from './settings-service.js';
import { createStateCache, type StateCache } from './state-cache.js';

/** The cache's default budget (RUNTIME_STATE_CACHE_MB), stated: these tests depend on it being on. */
const CACHE_MB = 16;
const CACHE_CHARS = CACHE_MB * 1024 * 1024;

const stateNamed = (name: string) => ({ name }) as unknown as WorkloadContainerState;

describe('state cache', () => {
  test('gives a state back once, at the version it was kept at', () => {
    const cache = createStateCache({ maxChars: 1000, idleMs: 60_000 });
    cache.keep('a', '7', stateNamed('a7'), 10);
    assert.deepEqual(cache.heldVersions(['a', 'b']), { ids: ['a'], versions: ['7'] });
    assert.deepEqual(cache.take('a', '7'), stateNamed('a7'));
    assert.equal(cache.take('a', '7'), undefined, 'taken: the caller advances it in place');
    cache.keep('a', '8', stateNamed('a8'), 10);
    assert.equal(cache.take('a', '9'), undefined, 'the row moved on');
    assert.deepEqual(cache.size, { states: 0, chars: 0 }, 'a stale copy leaves too');
    cache.close();
  });

  test('holds at most maxChars of JSON, dropping the least recently kept', () => {
    const cache = createStateCache({ maxChars: 100, idleMs: 60_000 });
    cache.keep('a', '1', stateNamed('a'), 40);
    cache.keep('b', '1', stateNamed('b'), 40);
    cache.keep('a', '2', stateNamed('a'), 40); // kept again: now the most recent
    cache.keep('c', '1', stateNamed('c'), 40);
    assert.deepEqual(cache.heldVersions(['a', 'b', 'c']), { ids: ['a', 'c'], versions: ['2', '1'] });
    assert.deepEqual(cache.size, { states: 2, chars: 80 });
    cache.keep('huge', '1', stateNamed('huge'), 101);
    assert.deepEqual(cache.heldVersions(['huge']).ids, [], 'larger than the whole cache: not kept');
    cache.close();
  });

  test('forgets states not kept again within idleMs', () => {
    let now = 0;
    const cache = createStateCache({ maxChars: 1000, idleMs: 100 }, () => now);
    cache.keep('a', '1', stateNamed('a'), 10);
    now = 60;
    cache.keep('b', '1', stateNamed('b'), 10);
    now = 120;
    cache.keep('c', '1', stateNamed('c'), 10);
    assert.deepEqual(cache.heldVersions(['a', 'b', 'c']).ids, ['b', 'c']);
    cache.close();
    assert.deepEqual(cache.size, { states: 0, chars: 0 });
  });
});

describe('state cache with the database', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ RUNTIME_STATE_CACHE_MB: CACHE_MB });
  });
  after(() => t.close());

  async function freshTarget(): Promise<RuntimeTarget & { userId: string }> {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'cache');
    return {
      token: tenant.adminToken,
      accountId: tenant.accountId,
      clusterId: cluster.id,
      userId: tenant.admin.userId,
    };
  }
  const events = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) =>
      exec(WEB, from + i, { pid: 100 + i, ppid: 0, comm: 'job', exe: '/app/job' }),
    );
  async function storedRow(accountId: string) {
    const { rows } = await t.db.query<{ id: string; version: string; state: string }>(
      'select id, state_version::text as version, state from runtime_workloads where account_id = $1',
      [accountId],
    );
    assert.equal(rows.length, 1);
    const row = rows[0]!;
    return { id: row.id, version: row.version, state: JSON.parse(row.state) as WorkloadContainerState };
  }

  test("a push keeps the state it stored, at its row's version", async () => {
    const target = await freshTarget();
    await pushOk(t, target, events(0, 3));
    const row = await storedRow(target.accountId);
    const cache = t.app.services.runtimeStateCache;
    assert.deepEqual(cache.heldVersions([row.id]), { ids: [row.id], versions: [row.version] });
    await pushOk(t, target, events(10, 2));
    const next = await storedRow(target.accountId);
    assert.notEqual(next.version, row.version);
    assert.equal(next.state.baseline.eventCount, 5);
    assert.deepEqual(cache.heldVersions([row.id]).versions, [next.version]);
  });

  test('states advanced from the cache are the states advanced from their rows', async () => {
    // The sample stream in seven parts, twice: once from the cache, once with every kept copy made
    // stale before each part (a write of the row renews its version), so every part reads its
    // states back. A state the engine holds differently in memory than its JSON says (an undefined
    // field, a non-JSON value) would make the two answer or store differently.
    const lines = sampleRuntimeText().trim().split('\n');
    const parts = Array.from({ length: 7 }, (_, i) =>
      lines.slice(Math.floor((i * lines.length) / 7), Math.floor(((i + 1) * lines.length) / 7)),
    );
    const cached = await freshTarget();
    const reread = await freshTarget();
    for (const target of [cached, reread])
      await putSettings(t, target, { trusted_ip_prefixes: SAMPLE_TRUSTED_PREFIXES });
    const answers = { cached: [] as unknown[], reread: [] as unknown[] };
    for (const part of parts) {
      const body = `${part.join('\n')}\n`;
      await t.db.query('update runtime_workloads set updated_at = updated_at where account_id = $1', [
        reread.accountId,
      ]);
      const { cluster_id: _, ...fromCache } = await pushOk(t, cached, body);
      const { cluster_id: __, ...fromRows } = await pushOk(t, reread, body);
      answers.cached.push(fromCache);
      answers.reread.push(fromRows);
    }
    assert.deepEqual(answers.cached, answers.reread);
    const states = async (target: RuntimeTarget) => {
      const { rows } = await t.db.query<{ workload_key: string; state: string }>(
        'select workload_key, state from runtime_workloads where account_id = $1 order by workload_key',
        [target.accountId],
      );
      return rows.map((row) => JSON.parse(row.state.replaceAll(target.clusterId, '<cluster>')));
    };
    const fromCache = await states(cached);
    assert.equal(fromCache.length, 3);
    assert.deepEqual(fromCache, await states(reread));
  });

  test('a state another writer changed is read again, not taken from the cache', async () => {
    const target = await freshTarget();
    await pushOk(t, target, events(0, 3));
    const { id, state } = await storedRow(target.accountId);
    state.baseline.eventCount = 1000;
    await t.db.query('update runtime_workloads set state = $3 where account_id = $1 and id = $2', [
      target.accountId,
      id,
      JSON.stringify(state),
    ]);
    await pushOk(t, target, events(10, 2));
    assert.equal((await storedRow(target.accountId)).state.baseline.eventCount, 1002);
  });

  /** What the ingest service does: the cluster's lock, then the push, in one transaction. */
  const pushWith = (
    cache: StateCache,
    target: RuntimeTarget & { userId: string },
    batch: ReturnType<typeof events>,
    fail = false,
  ) =>
    t.db.transaction(async (tx) => {
      await lockRuntimeOfCluster(tx, target.clusterId);
      const outcome = await applyRuntimePush(
        tx,
        {
          accountId: target.accountId,
          clusterId: target.clusterId,
          userId: target.userId,
          settings: await loadRuntimeSettings(tx, target.accountId),
          now: new Date(),
        },
        batch,
        cache,
      );
      if (fail) throw new Error('the push fails after its states were advanced');
      return outcome;
    });

  test('a push rolled back after advancing a held state leaves the cache without it', async () => {
    const target = await freshTarget();
    const cache = createStateCache({ maxChars: CACHE_CHARS });
    const push = (batch: ReturnType<typeof events>, fail = false) => pushWith(cache, target, batch, fail);
    // The states are kept only after the commit, as the ingest service keeps them.
    const pushAndKeep = async (batch: ReturnType<typeof events>) => {
      for (const s of (await push(batch)).storedStates) cache.keep(s.id, s.version, s.state, s.chars);
    };
    await pushAndKeep(events(0, 3));
    assert.equal(cache.size.states, 1);
    await assert.rejects(push(events(10, 2), true), /states were advanced/);
    assert.equal(cache.size.states, 0);
    await pushAndKeep(events(10, 2));
    assert.equal((await storedRow(target.accountId)).state.baseline.eventCount, 5, 'counted once');
    cache.close();
  });

  test('with the cache off (RUNTIME_STATE_CACHE_MB=0) every push reads its states back', async () => {
    const target = await freshTarget();
    const cache = createStateCache({ maxChars: 0 });
    for (const batch of [events(0, 3), events(10, 2)]) {
      for (const s of (await pushWith(cache, target, batch)).storedStates) {
        cache.keep(s.id, s.version, s.state, s.chars);
      }
      assert.equal(cache.size.states, 0, 'nothing is held');
    }
    const { id, version, state } = await storedRow(target.accountId);
    assert.deepEqual(cache.heldVersions([id]), { ids: [], versions: [] });
    assert.equal(state.baseline.eventCount, 5, 'the second push advanced the stored state');
    // The rows' state_version still moves with every write: a server with the cache on relies on it.
    await pushWith(cache, target, events(20, 1));
    assert.notEqual((await storedRow(target.accountId)).version, version);
    cache.close();
  });
});
