import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Actor } from '../../http/actor.js';
import { hashToken, tokenDigest } from '../../security/secrets.js';
import { createSessionCache } from './session-cache.js';

/** The cache's key for token n: its SHA-256 in base64, as the auth service computes it. */
const hash = (n: number) => tokenDigest(`pst_token-${n}`);
const actor = (userId: string, accessKeyId = `pak_${userId}`): Actor => ({
  userId,
  tenantId: 'tenant',
  accessKeyId,
  keyScope: 'tenant',
  keyAccountId: null,
  assignments: [],
});

function cacheWithClock(options: { maxEntries?: number; ttlMs?: number } = {}) {
  let now = 1_000_000;
  const cache = createSessionCache({
    maxEntries: options.maxEntries ?? 100,
    ttlMs: options.ttlMs ?? 1000,
    now: () => now,
  });
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('session cache', () => {
  test('an entry lives until the TTL or the time the database gave it, whichever is first', () => {
    const { cache, advance } = cacheWithClock({ ttlMs: 1000 });
    cache.beginLookup().store(hash(1), actor('a'), 60_000);
    cache.beginLookup().store(hash(2), actor('b'), 300);
    advance(299);
    assert.equal(cache.get(hash(1))?.userId, 'a');
    assert.equal(cache.get(hash(2))?.userId, 'b');
    advance(1);
    assert.equal(cache.get(hash(2)), undefined, 'the session (or its key) expired');
    advance(700);
    assert.equal(cache.get(hash(1)), undefined, 'past the TTL: read it again');
    assert.equal(cache.size, 0, 'stale entries are dropped when met');
  });

  test("the time left counts from the lookup's start: a slow answer never stretches it", () => {
    const { cache, advance } = cacheWithClock({ ttlMs: 1000 });
    const lookup = cache.beginLookup();
    advance(200); // the database's answer takes 200 ms to arrive
    lookup.store(hash(1), actor('a'), 300);
    advance(99);
    assert.ok(cache.get(hash(1)));
    advance(1);
    assert.equal(cache.get(hash(1)), undefined, '300 ms after the lookup began');
  });

  test('nothing is stored for a session with no time left', () => {
    const { cache } = cacheWithClock();
    cache.beginLookup().store(hash(1), actor('a'), 0);
    assert.equal(cache.get(hash(1)), undefined);
  });

  test('bounded: the least recently used entry leaves first', () => {
    const { cache } = cacheWithClock({ maxEntries: 3 });
    for (const n of [1, 2, 3]) cache.beginLookup().store(hash(n), actor(`u${n}`), 60_000);
    assert.ok(cache.get(hash(1)), 'a hit makes 1 the most recent');
    cache.beginLookup().store(hash(4), actor('u4'), 60_000);
    assert.equal(cache.size, 3);
    assert.equal(cache.get(hash(2)), undefined, '2 was the least recently used');
    for (const n of [1, 3, 4]) assert.ok(cache.get(hash(n)), `${n} kept`);
  });

  test('forget removes the entries of a token, a key or a user, and nothing else', () => {
    const { cache } = cacheWithClock();
    const store = (n: number, a: Actor) => cache.beginLookup().store(hash(n), a, 60_000);
    store(1, actor('alice', 'pak_1'));
    store(2, actor('alice', 'pak_2'));
    store(3, actor('bob', 'pak_3'));
    store(4, actor('bob', 'pak_4'));
    store(5, actor('carol', 'pak_5'));
    // A sign-out names the token by the digest the sessions table stores.
    cache.forget({ tokenHash: hashToken('pst_token-5') });
    assert.equal(cache.get(hash(5)), undefined);
    cache.forget({ accessKeyId: 'pak_3' });
    assert.equal(cache.get(hash(3)), undefined);
    assert.ok(cache.get(hash(4)), "bob's other key is untouched");
    cache.forget({ userId: 'alice' });
    assert.equal(cache.get(hash(1)), undefined);
    assert.equal(cache.get(hash(2)), undefined);
    assert.ok(cache.get(hash(4)));
    cache.forget({ all: true });
    assert.equal(cache.size, 0);
  });

  test('a lookup that began before a revocation does not store what it read', () => {
    const { cache } = cacheWithClock();
    // The database answered before the revocation committed; the answer arrives after it.
    const inFlight = cache.beginLookup();
    cache.forget({ userId: 'someone else entirely' });
    const returned = inFlight.store(hash(1), actor('a'), 60_000);
    assert.equal(returned.userId, 'a', 'this request still gets its answer');
    assert.equal(cache.get(hash(1)), undefined, 'but the next one reads the database again');
    cache.beginLookup().store(hash(1), actor('a'), 60_000);
    assert.ok(cache.get(hash(1)), 'a lookup begun after the revocation is stored');
  });
});
