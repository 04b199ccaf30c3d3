/**
 * Access keys in, session tokens out (endpoint #1), and session tokens back to an Actor on every
 * other request, through a short-lived in-process cache (session-cache.ts, docs/auth.md). Unknown
 * ids and wrong secrets take the same path and give the same answer. A repeated login with the
 * right secret skips the key read (docs/auth.md, "Login key cache").
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { createLru } from '../../lru.js';
import { hashSecret, hashToken, newSessionToken, sameHash, tokenDigest } from '../../security/secrets.js';
import type { LoginThrottle } from './login-throttle.js';
import * as repo from './repository.js';
import { subscribeToSessionChanges } from './revocations.js';
import { createSessionCache } from './session-cache.js';
import { createSessionWriter } from './session-writer.js';

export interface AuthServiceDeps {
  db: Database;
  pepper: string;
  sessionTtlSeconds: number;
  throttle: LoginThrottle;
}

export interface Session {
  token: string;
  expiresAt: Date;
}

/** How long expired sessions are kept so their clients hear token_expired, not unauthenticated. */
const EXPIRED_SESSION_RETENTION_MS = 24 * 3600 * 1000;
const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
/**
 * How long a session read from the database is trusted without reading it again: the bound on how
 * late this process learns of a revocation made by another process (docs/auth.md, "Session
 * cache"). Revocations made by this process take effect at once whatever this says.
 */
export const SESSION_CACHE_TTL_MS = 1000;
const SESSION_CACHE_MAX_ENTRIES = 10_000;
/** Access keys remembered for their next login (see `authenticate`). */
const LOGIN_KEY_CACHE_MAX_ENTRIES = 10_000;

function actorOfSession(session: repo.SessionRow): Actor {
  // Frozen: one cached Actor serves many requests at once, so no request may change it.
  return Object.freeze({
    userId: session.user_id,
    tenantId: session.tenant_id,
    accessKeyId: session.access_key_id,
    keyScope: session.key_scope,
    keyAccountId: session.key_account_id,
    assignments: Object.freeze(
      session.assignments.map((a) =>
        Object.freeze({ level: a.level, accountId: a.account_id, role: a.role }),
      ),
    ),
  });
}

export function createAuthService({ db, pepper, sessionTtlSeconds, throttle }: AuthServiceDeps) {
  // Compared against when the key id is unknown, so both failures cost one HMAC and one compare.
  const decoyHash = hashSecret(pepper, 'decoy');
  let lastCleanup = 0;
  const sessions = createSessionCache({ maxEntries: SESSION_CACHE_MAX_ENTRIES, ttlMs: SESSION_CACHE_TTL_MS });
  subscribeToSessionChanges(sessions);
  // The parts of a key that never change (id, user, tenant, secret hash) of keys that logged in
  // here, so that the next login with one skips the key lookup (docs/auth.md, "Login key cache").
  // Whether the key may still log in is never taken from here: the session's write decides it.
  const loginKeys = createLru<repo.LoginKey>(LOGIN_KEY_CACHE_MAX_ENTRIES);
  const sessionWriter = createSessionWriter(db);

  async function cleanupExpiredSessions(now: number): Promise<void> {
    if (now - lastCleanup < CLEANUP_INTERVAL_MS) return;
    lastCleanup = now;
    await repo.deleteSessionsExpiredBefore(db, new Date(now - EXPIRED_SESSION_RETENTION_MS));
  }

  return {
    async authenticate(
      credentials: { accessKeyId: string; secretKey: string },
      clientAddress: string,
    ): Promise<Session> {
      const throttleKeys = [`key:${credentials.accessKeyId}`, `addr:${clientAddress}`];
      const wait = throttle.retryAfter(throttleKeys);
      if (wait > 0) {
        throw new ApiError('rate_limited', 'too many failed authentications; retry later', [], {
          'retry-after': String(wait),
        });
      }
      const refuse = (): never => {
        throttle.recordFailure(throttleKeys);
        throw new ApiError('invalid_credentials');
      };
      const presented = hashSecret(pepper, credentials.secretKey);
      // Only the right secret is answered from memory. Any other attempt reads the key as an
      // unknown id does, so a failure costs the same whether or not the key is cached.
      const remembered = loginKeys.get(credentials.accessKeyId);
      let key: repo.LoginKey | undefined =
        remembered && sameHash(presented, remembered.secret_hash) ? remembered : undefined;
      if (!key) {
        const found = await repo.findKeyForLogin(db, credentials.accessKeyId);
        const secretMatches = sameHash(presented, found?.secret_hash ?? decoyHash) && found !== undefined;
        if (!found || !secretMatches || !found.usable) return refuse();
        key = found;
      }
      const now = Date.now();
      const token = newSessionToken();
      const expiresAt = new Date(now + sessionTtlSeconds * 1000);
      // Refused when the key was revoked or expired, or its user locked, since it was read: by
      // this process or any other, cached or not, the database decides at the moment of the write.
      if (!(await sessionWriter.write({ tokenHash: hashToken(token), key, expiresAt }))) {
        loginKeys.delete(key.id);
        return refuse();
      }
      loginKeys.set(key.id, {
        id: key.id,
        user_id: key.user_id,
        tenant_id: key.tenant_id,
        secret_hash: key.secret_hash,
      });
      throttle.reset(`key:${credentials.accessKeyId}`);
      await cleanupExpiredSessions(now);
      return { token, expiresAt };
    },

    /**
     * The Actor of a token seen in the last second, from memory, or undefined: then ask
     * actorForToken. Lets the request hook authenticate most requests without a promise.
     */
    cachedActor(token: string): Actor | undefined {
      return sessions.get(tokenDigest(token));
    },

    async actorForToken(token: string): Promise<Actor> {
      const digest = tokenDigest(token);
      const cached = sessions.get(digest);
      if (cached) return cached;
      const lookup = sessions.beginLookup();
      const session = await repo.findSession(db, Buffer.from(digest, 'base64'));
      if (!session?.usable) throw new ApiError('unauthenticated');
      if (session.expired) throw new ApiError('token_expired');
      return lookup.store(digest, actorOfSession(session), session.valid_for_ms);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
