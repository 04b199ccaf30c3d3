/**
 * Operator-side tenancy: create tenants, accounts, users, role assignments and keys directly in
 * the store. Used by the `posture` CLI, the demo tenant and tests; the HTTP API never calls it
 * (there, every change goes through an Actor's permissions).
 *
 * @example
 *   const t = await createTenancyService({ db, pepper }).bootstrap({ tenant: 'acme', account: 'prod' });
 *   // { tenant_id, account_id, user_id, access_key_id, secret_key }
 */
import type { Database, Executor } from '../../db/database.js';
import type { Level, Role } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { newId } from '../../http/ids.js';
import { findAccessKey, revokeAccessKey } from '../access-keys/repository.js';
import { issueAccessKey } from '../access-keys/service.js';
import { announceSessionChange } from '../auth/revocations.js';
import * as repo from './repository.js';

export interface BootstrapResult {
  tenant_id: string;
  account_id: string;
  user_id: string;
  access_key_id: string;
  secret_key: string;
}

export function createTenancyService({ db, pepper }: { db: Database; pepper: string }) {
  async function createKey(
    tx: Executor,
    input: {
      tenantId: string;
      userId: string;
      name: string;
      scope: Level;
      accountId: string | null;
      expiresAt?: Date | null;
    },
  ) {
    const { row, secret } = await issueAccessKey(tx, pepper, {
      ...input,
      expiresAt: input.expiresAt ?? null,
      createdBy: null,
    });
    return { access_key_id: row.id, secret_key: secret, scope: row.scope, account_id: row.account_id };
  }

  return {
    /** A tenant, its first account, an admin user with a tenant-level admin role, and a tenant key. */
    bootstrap(input: {
      tenant: string;
      account: string;
      user?: string;
      email?: string | null;
    }): Promise<BootstrapResult> {
      return db.transaction(async (tx) => {
        const tenantId = newId();
        const accountId = newId();
        const userId = newId();
        await repo.insertTenant(tx, { id: tenantId, name: input.tenant });
        await repo.insertAccount(tx, { id: accountId, tenantId, name: input.account });
        await repo.insertUser(tx, {
          id: userId,
          tenantId,
          name: input.user ?? 'admin',
          email: input.email ?? null,
        });
        await repo.insertRoleAssignment(tx, {
          tenantId,
          userId,
          level: 'tenant',
          accountId: null,
          role: 'admin',
        });
        const key = await createKey(tx, {
          tenantId,
          userId,
          name: 'bootstrap',
          scope: 'tenant',
          accountId: null,
        });
        return {
          tenant_id: tenantId,
          account_id: accountId,
          user_id: userId,
          access_key_id: key.access_key_id,
          secret_key: key.secret_key,
        };
      });
    },

    async createAccount(input: { tenantId: string; name: string }) {
      const id = newId();
      await repo.insertAccount(db, { id, tenantId: input.tenantId, name: input.name });
      return { account_id: id, tenant_id: input.tenantId, name: input.name };
    },

    async createUser(input: { tenantId: string; name: string; email?: string | null }) {
      const id = newId();
      await repo.insertUser(db, {
        id,
        tenantId: input.tenantId,
        name: input.name,
        email: input.email ?? null,
      });
      return { user_id: id, tenant_id: input.tenantId, name: input.name };
    },

    async assignRole(input: {
      tenantId: string;
      userId: string;
      level: Level;
      accountId: string | null;
      role: Role;
    }) {
      await repo.insertRoleAssignment(db, input);
      announceSessionChange({ userId: input.userId });
      return { user_id: input.userId, level: input.level, account_id: input.accountId, role: input.role };
    },

    createAccessKey(input: {
      tenantId: string;
      userId: string;
      name: string;
      scope: Level;
      accountId: string | null;
      expiresAt?: Date | null;
    }) {
      return db.transaction((tx) => createKey(tx, input));
    },

    async revokeAccessKey(input: { tenantId: string; accessKeyId: string }) {
      await db.transaction(async (tx) => {
        if (!(await findAccessKey(tx, input.tenantId, null, input.accessKeyId))) {
          throw new ApiError('not_found', `no access key ${input.accessKeyId} in tenant ${input.tenantId}`);
        }
        await revokeAccessKey(tx, input.tenantId, input.accessKeyId);
      });
      announceSessionChange({ accessKeyId: input.accessKeyId });
      return { access_key_id: input.accessKeyId, revoked: true };
    },

    async setUserLocked(input: { tenantId: string; userId: string; locked: boolean }) {
      await db.transaction(async (tx) => {
        if (!(await repo.setUserLocked(tx, input.tenantId, input.userId, input.locked))) {
          throw new ApiError('not_found', `no user ${input.userId} in tenant ${input.tenantId}`);
        }
        // Locking a user ends their sessions at once (the session lookup also refuses locked users).
        if (input.locked) await repo.deleteSessionsOfUser(tx, input.userId);
      });
      announceSessionChange({ userId: input.userId });
      return { user_id: input.userId, locked: input.locked };
    },

    hasAnyTenant: async () => (await repo.countTenants(db)) > 0,
  };
}

export type TenancyService = ReturnType<typeof createTenancyService>;
