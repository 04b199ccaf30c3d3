/**
 * Knowledge-base collections (#28 and the account-narrowed path of DESIGN.md section 6).
 * A collection is named uniquely in its tenant and is either tenant-wide (created on the tenant
 * path) or owned by one account (created on the account path). The tenant path lists every
 * collection of the tenant; the account path only that account's. Viewers list, admins create and
 * delete: a tenant admin on the tenant path, an admin of the account on the account path.
 */
import type { Database } from '../../db/database.js';
import type { Actor, Role } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { type OffsetPage, tenantOffsetList } from '../../http/paging.js';
import type { AccountService } from '../accounts/service.js';
import { isUniqueViolation } from '../clusters/repository.js';
import { requireOwnTenant, requireTenant } from '../integrations/tenant-access.js';
import * as repo from './repository.js';

export interface CollectionPath {
  tenantId: string;
  /** set on the account-narrowed path */
  accountId?: string;
}

export function createKnowledgeBaseService({ db, accounts }: { db: Database; accounts: AccountService }) {
  async function scopeOf(actor: Actor, path: CollectionPath, needed: Role): Promise<repo.CollectionScope> {
    if (path.accountId === undefined)
      return { tenantId: requireTenant(actor, path.tenantId, needed), accountId: null };
    // The tenant in the path must be the caller's; the account gate then applies as everywhere.
    requireOwnTenant(actor, path.tenantId);
    const account = await accounts.requireAccount(actor, path.accountId, needed);
    return { tenantId: account.tenant_id, accountId: account.id };
  }

  return {
    async list(actor: Actor, path: CollectionPath, page: OffsetPage) {
      const scope = await scopeOf(actor, path, 'viewer');
      const { names, total } = await repo.listCollections(db, scope, page);
      return tenantOffsetList(names, total, page);
    },

    async create(actor: Actor, path: CollectionPath, name: string) {
      const scope = await scopeOf(actor, path, 'admin');
      try {
        await repo.insertCollection(db, { ...scope, name, createdBy: actor.userId });
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ApiError('conflict', 'a collection with this name exists in the tenant');
        throw error;
      }
      return { name };
    },

    async remove(actor: Actor, path: CollectionPath, name: string) {
      const scope = await scopeOf(actor, path, 'admin');
      if (!(await repo.deleteCollection(db, scope, name)))
        throw new ApiError('not_found', 'collection not found');
    },
  };
}

export type KnowledgeBaseService = ReturnType<typeof createKnowledgeBaseService>;
