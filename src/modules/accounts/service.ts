/**
 * Accounts, and the one gate every account-scoped route passes: `requireAccount(actor, id, role)`.
 * An account outside the caller's tenant, key scope or role assignments answers 404 exactly as a
 * missing one does; a visible account with too low a role answers 403. The row itself comes from
 * an in-process cache once read (account-cache.ts); the decision is taken on every request.
 */
import type { Executor } from '../../db/database.js';
import { type Actor, atLeast, ROLES, type Role, roleOnAccount } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { isUuid } from '../../http/ids.js';
import { type OffsetPage, offsetList } from '../../http/paging.js';
import { createAccountCache } from './account-cache.js';
import * as repo from './repository.js';

export type Account = repo.AccountRow;

export function toApiAccount(row: Account) {
  return { id: row.id, name: row.name, parent_id: row.tenant_id, created_at: row.created_at.toISOString() };
}

export type ApiAccount = ReturnType<typeof toApiAccount>;

/** Accounts the actor can see: null = all of the tenant. */
export function visibleAccountIds(actor: Actor): string[] | null {
  if (actor.keyScope === 'account') {
    const id = actor.keyAccountId;
    return id && actor.assignments.some((a) => a.level === 'tenant' || a.accountId === id) ? [id] : [];
  }
  if (actor.assignments.some((a) => a.level === 'tenant')) return null;
  return [...new Set(actor.assignments.flatMap((a) => (a.accountId ? [a.accountId] : [])))];
}

/**
 * TEST ONLY (POSTURE_UNSAFE_DISABLE_APP_SCOPING, refused outside NODE_ENV=test): any UUID names an
 * account of the caller's tenant and the caller acts on it with the highest role it holds
 * anywhere, so a request for another tenant's or account's data reaches the repositories and
 * only the row-level security policies stand in the way (docs/security.md).
 */
function unscopedAccount(actor: Actor, accountId: string, found: Account | undefined) {
  const account = found ?? {
    id: accountId,
    tenant_id: actor.tenantId,
    name: accountId,
    created_at: new Date(0),
  };
  const role = actor.assignments.reduce<Role | null>(
    (best, a) => (best === null || ROLES.indexOf(a.role) > ROLES.indexOf(best) ? a.role : best),
    null,
  );
  return { account, role };
}

/** Rows kept by each service's account cache (account-cache.ts): about 2 MB when full. */
const ACCOUNT_CACHE_MAX_ENTRIES = 10_000;

export function createAccountService({
  db,
  unsafeDisableScoping = false,
}: {
  db: Executor;
  unsafeDisableScoping?: boolean;
}) {
  const cache = createAccountCache(ACCOUNT_CACHE_MAX_ENTRIES);

  /** The account of the tenant with this id, from the cache or, when absent, the database. */
  async function findAccount(tenantId: string, accountId: string): Promise<Account | undefined> {
    // The RLS-only test mode reads the database every time, exactly as before the cache.
    if (unsafeDisableScoping) return repo.findAccountInTenant(db, tenantId, accountId);
    const cached = cache.get(tenantId, accountId);
    if (cached) return cached;
    const row = await repo.findAccountInTenant(db, tenantId, accountId);
    return row && cache.remember(row); // "not found" is never stored
  }

  /** The same 404 and 403 whether the row came from the cache or the database. */
  function decide(actor: Actor, accountId: string, found: Account | undefined, needed: Role): Account {
    let account = found;
    let role = found ? roleOnAccount(actor, found.id) : null;
    if (unsafeDisableScoping && isUuid(accountId))
      ({ account, role } = unscopedAccount(actor, accountId, found));
    if (!account || role === null) throw new ApiError('not_found', 'account not found');
    if (!atLeast(role, needed))
      throw new ApiError('forbidden', `this requires the ${needed} role on the account`);
    return account;
  }

  // The API form of each cached row, made once: the rows are frozen and never change.
  const apiForms = new WeakMap<Account, ApiAccount>();

  return {
    async requireAccount(actor: Actor, accountId: string, needed: Role): Promise<Account> {
      const found = isUuid(accountId) ? await findAccount(actor.tenantId, accountId) : undefined;
      return decide(actor, accountId, found, needed);
    },

    /**
     * `requireAccount` answered from the cache alone, at once (no promise): the account's API
     * form, or undefined when the row is not cached (then ask requireAccount). The same 404 and
     * 403 as requireAccount for a cached row. For `GET /accounts/{id}`, the tiny authenticated
     * response, which then runs start to end in one pass (docs/performance.md, "Fix 5", "Third pass").
     */
    cachedApiAccount(actor: Actor, accountId: string, needed: Role): ApiAccount | undefined {
      if (unsafeDisableScoping || !isUuid(accountId)) return undefined;
      const cached = cache.get(actor.tenantId, accountId);
      if (!cached) return undefined;
      const account = decide(actor, accountId, cached, needed);
      let api = apiForms.get(account);
      if (!api) {
        api = Object.freeze(toApiAccount(account));
        apiForms.set(account, api);
      }
      return api;
    },

    async list(actor: Actor, query: { parentId?: string; page: OffsetPage }) {
      if (query.parentId !== undefined && query.parentId !== actor.tenantId) {
        return offsetList([], 0, query.page); // another tenant's accounts are never visible
      }
      const { rows, total } = await repo.listAccounts(
        db,
        actor.tenantId,
        visibleAccountIds(actor),
        query.page,
      );
      return offsetList(rows.map(toApiAccount), total, query.page);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
