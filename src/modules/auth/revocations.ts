/**
 * How the services that end or change a session's authority (key revocation, sign-out, user lock,
 * role changes) tell the session caches of their process, after their transaction commits.
 *
 * Process-wide on purpose: the announcers (HTTP services, the tenancy service of the CLI, demo
 * and tests) and the caches (one per authentication service) are created separately, and may hold
 * different handles on one database (the application's role and the owner's, docs/security.md).
 * A cache of another app in the same process forgets a few entries it did not need to: harmless,
 * since it reads them again. Another process's cache forgets by its TTL (docs/auth.md, "Session
 * cache").
 *
 * @example
 *   await db.transaction((tx) => repo.revokeAccessKey(tx, tenantId, id));
 *   announceSessionChange({ accessKeyId: id });
 */
import type { SessionMatch } from './session-cache.js';

interface Forgetter {
  forget(match: SessionMatch): void;
}

// Weak: an app that is closed and dropped takes its cache with it, subscribed or not.
const caches = new Set<WeakRef<Forgetter>>();

/** Call after the change is committed: a lookup that starts later must see it in the database. */
export function announceSessionChange(match: SessionMatch): void {
  for (const ref of caches) {
    const cache = ref.deref();
    if (cache) cache.forget(match);
    else caches.delete(ref);
  }
}

export function subscribeToSessionChanges(cache: Forgetter): void {
  caches.add(new WeakRef(cache));
}
