/**
 * The rows of recently used accounts, kept in process memory so that the gate every
 * account-scoped request passes (`requireAccount`) does not read the same row again and again:
 * under row-level security that read is three database round trips (docs/performance.md, "Fix 5").
 *
 * Safe without a TTL or any invalidation because an account row never changes once it exists:
 * Posture inserts accounts and never updates or deletes them (docs/auth.md, "Account cache").
 * A change that ever updates or deletes one must clear this cache in every process first.
 *
 * - Keyed by (tenant, account): a lookup in another tenant's name never meets the entry, so the
 *   cache answers exactly what `where id = $1 and tenant_id = $2` would.
 * - Only rows that exist are stored. "Not found" is always asked again: the account may be created
 *   a moment later, by this process or another one.
 * - It holds rows, not decisions: who may see the account is decided on every request from the
 *   caller's Actor (roleOnAccount), cached or not.
 * - Bounded: past `maxEntries` the least recently used row leaves first.
 *
 * @example
 *   const cache = createAccountCache(10_000);
 *   const row = cache.get(tenantId, accountId) ?? cache.remember(await readFromDatabase());
 */
import { createLru } from '../../lru.js';
import type { AccountRow } from './repository.js';

// UUIDs are matched case-insensitively (isUuid), and PostgreSQL answers `id = $1` for either case.
const keyOf = (tenantId: string, accountId: string): string =>
  `${tenantId.toLowerCase()}/${accountId.toLowerCase()}`;

export function createAccountCache(maxEntries: number) {
  const rows = createLru<AccountRow>(maxEntries);
  return {
    get: (tenantId: string, accountId: string): AccountRow | undefined =>
      rows.get(keyOf(tenantId, accountId)),

    /** Stores a row read from the database and returns the shared copy. */
    remember(row: AccountRow): AccountRow {
      // Frozen: one cached row serves many requests at once, so no request may change it.
      return rows.set(keyOf(row.tenant_id, row.id), Object.freeze({ ...row }));
    },

    get size(): number {
      return rows.size;
    },
  };
}

export type AccountCache = ReturnType<typeof createAccountCache>;
