/**
 * Access keys: created by admins (secret shown once), listed, revoked. A tenant-scoped key needs a
 * tenant admin; an account-scoped key an admin of that account. Revocation ends the key's
 * sessions at once.
 */
import type { Database, Executor } from '../../db/database.js';
import { type Actor, type Level, roleOnAccount, roleOnTenant } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { iso, isUuid } from '../../http/ids.js';
import { type OffsetPage, offsetList } from '../../http/paging.js';
import { hashSecret, newAccessKeyId, newSecretKey } from '../../security/secrets.js';
import { findAccountInTenant } from '../accounts/repository.js';
import { announceSessionChange } from '../auth/revocations.js';
import * as repo from './repository.js';

export function toApiAccessKey(row: repo.AccessKeyRow) {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    account_id: row.account_id,
    user_id: row.user_id,
    created_at: iso(row.created_at)!,
    created_by: row.created_by,
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

export interface NewAccessKey {
  tenantId: string;
  userId: string;
  name: string;
  scope: Level;
  accountId: string | null;
  expiresAt: Date | null;
  createdBy: string | null;
}

/** Creates a key and returns its secret: the only moment the secret exists outside the caller. */
export async function issueAccessKey(db: Executor, pepper: string, key: NewAccessKey) {
  const secret = newSecretKey();
  const row = await repo.insertAccessKey(db, {
    id: newAccessKeyId(),
    tenant_id: key.tenantId,
    user_id: key.userId,
    name: key.name,
    scope: key.scope,
    account_id: key.accountId,
    created_by: key.createdBy,
    expires_at: key.expiresAt,
    secret_hash: hashSecret(pepper, secret),
  });
  return { row, secret };
}

/** The keys an actor may manage: null = every key of the tenant (tenant admin). */
function manageableAccounts(actor: Actor): string[] | null {
  if (roleOnTenant(actor) === 'admin') return null;
  const accounts = actor.assignments.flatMap((a) => (a.accountId ? [a.accountId] : []));
  return [...new Set(accounts)].filter((id) => roleOnAccount(actor, id) === 'admin');
}

function requireSomeAdmin(actor: Actor): string[] | null {
  const accounts = manageableAccounts(actor);
  if (accounts !== null && accounts.length === 0) {
    throw new ApiError('forbidden', 'managing access keys requires the admin role');
  }
  return accounts;
}

export function createAccessKeyService({ db, pepper }: { db: Database; pepper: string }) {
  return {
    async create(
      actor: Actor,
      input: { name: string; scope: Level; accountId?: string | undefined; expiresAt?: Date | undefined },
    ) {
      requireSomeAdmin(actor);
      if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
        throw ApiError.validation([
          { code: 'out_of_range', field: 'expires_at', message: 'must be in the future', param: 'body' },
        ]);
      }
      let accountId: string | null = null;
      if (input.scope === 'tenant') {
        if (input.accountId !== undefined) {
          throw ApiError.validation([
            {
              code: 'invalid_value',
              field: 'account_id',
              message: 'only account-scoped keys name an account',
              param: 'body',
            },
          ]);
        }
        if (roleOnTenant(actor) !== 'admin') {
          throw new ApiError('forbidden', 'a tenant-scoped key requires the tenant admin role');
        }
      } else {
        const account =
          input.accountId && isUuid(input.accountId)
            ? await findAccountInTenant(db, actor.tenantId, input.accountId)
            : undefined;
        if (!account || roleOnAccount(actor, account.id) === null) {
          throw ApiError.validation([
            {
              code: input.accountId ? 'invalid_value' : 'required',
              field: 'account_id',
              message: input.accountId
                ? 'is not an account you can see'
                : 'is required for an account-scoped key',
              param: 'body',
            },
          ]);
        }
        if (roleOnAccount(actor, account.id) !== 'admin') {
          throw new ApiError('forbidden', 'an account-scoped key requires the admin role on that account');
        }
        accountId = account.id;
      }
      const { row, secret } = await issueAccessKey(db, pepper, {
        tenantId: actor.tenantId,
        userId: actor.userId,
        name: input.name,
        scope: input.scope,
        accountId,
        expiresAt: input.expiresAt ?? null,
        createdBy: actor.userId,
      });
      return { ...toApiAccessKey(row), secret_key: secret };
    },

    async list(actor: Actor, page: OffsetPage) {
      const { rows, total } = await repo.listAccessKeys(db, actor.tenantId, requireSomeAdmin(actor), page);
      return offsetList(rows.map(toApiAccessKey), total, page);
    },

    async get(actor: Actor, id: string) {
      const row = await repo.findAccessKey(db, actor.tenantId, requireSomeAdmin(actor), id);
      if (!row) throw new ApiError('not_found', 'access key not found');
      return toApiAccessKey(row);
    },

    async revoke(actor: Actor, id: string): Promise<void> {
      const accounts = requireSomeAdmin(actor);
      await db.transaction(async (tx) => {
        const row = await repo.findAccessKey(tx, actor.tenantId, accounts, id);
        if (!row) throw new ApiError('not_found', 'access key not found');
        await repo.revokeAccessKey(tx, actor.tenantId, id);
      });
      announceSessionChange({ accessKeyId: id });
    },
  };
}

export type AccessKeyService = ReturnType<typeof createAccessKeyService>;
