/**
 * The Actors of recently seen session tokens, kept in process memory so that a burst of requests
 * with one token costs one session lookup, not one per request (docs/auth.md, "Session cache").
 *
 * An entry lives at most `ttlMs`, and never past the moment its session or its key expires (the
 * database said how long it had left when it was read). Revocations made by this process remove
 * entries at once (`forget`); the TTL bounds how long another process's revocation goes unseen.
 * Size is bounded: the least recently used entry leaves first.
 *
 * @example
 *   const cache = createSessionCache({ maxEntries: 10_000, ttlMs: 1000 });
 *   const digest = tokenDigest(token); // its SHA-256, base64: the token itself is never kept
 *   const lookup = cache.beginLookup();
 *   const actor = cache.get(digest) ?? lookup.store(digest, await readFromDatabase(), msLeft);
 */
import type { Actor } from '../../http/actor.js';

export interface SessionCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** injectable for tests */
  now?: () => number;
}

interface Entry {
  actor: Actor;
  /** Date.now() after which the entry must be read again from the database */
  validUntil: number;
}

/** Which entries a revocation concerns. */
export type SessionMatch =
  /** the token's SHA-256, as the sessions table stores it */
  | { tokenHash: Buffer }
  | { accessKeyId: string }
  | { userId: string }
  /** authority changed in a way no narrower match names (e.g. rows written behind the server's back) */
  | { all: true };

/** Entries are keyed by the token's SHA-256 in base64 (tokenDigest in security/secrets.ts). */
const keyOf = (tokenHash: Buffer): string => tokenHash.toString('base64');

export function createSessionCache({ maxEntries, ttlMs, now = Date.now }: SessionCacheOptions) {
  // A Map iterates in insertion order: re-inserting on every hit keeps the oldest use first.
  const entries = new Map<string, Entry>();
  // The most recently used key, already last: a burst of requests with one token moves nothing.
  let newest: string | undefined;
  const remove = (key: string) => {
    entries.delete(key);
    if (key === newest) newest = undefined;
  };
  // Bumped by every revocation. A lookup that began before one must not store what it read: the
  // row it saw may be the one the revocation just ended.
  let generation = 0;

  function matches(entry: Entry, key: string, match: SessionMatch): boolean {
    if ('all' in match) return true;
    if ('tokenHash' in match) return key === keyOf(match.tokenHash);
    if ('accessKeyId' in match) return entry.actor.accessKeyId === match.accessKeyId;
    return entry.actor.userId === match.userId;
  }

  return {
    get(key: string): Actor | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() >= entry.validUntil) {
        remove(key);
        return undefined;
      }
      if (key !== newest) {
        entries.delete(key);
        entries.set(key, entry);
        newest = key;
      }
      return entry.actor;
    },

    /** Call before reading the session from the database; store what was read through it. */
    beginLookup() {
      const startedAtGeneration = generation;
      // The database measured msLeft after this instant: counting from here never overshoots.
      const startedAt = now();
      return {
        store(key: string, actor: Actor, msLeft: number): Actor {
          if (generation !== startedAtGeneration || msLeft <= 0) return actor;
          entries.delete(key);
          entries.set(key, { actor, validUntil: startedAt + Math.min(ttlMs, msLeft) });
          newest = key;
          while (entries.size > maxEntries) remove(entries.keys().next().value as string);
          return actor;
        },
      };
    },

    /** Ends the cached authority of every matching session, before the next request is served. */
    forget(match: SessionMatch): void {
      generation += 1;
      for (const [key, entry] of entries) {
        if (matches(entry, key, match)) remove(key);
      }
    },

    get size(): number {
      return entries.size;
    },
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
