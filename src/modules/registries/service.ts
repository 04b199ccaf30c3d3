/** Container image registries of an account (#2-#4). */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { iso, isUuid, newId } from '../../http/ids.js';
import type { AccountService } from '../accounts/service.js';
import { isUniqueViolation } from '../clusters/repository.js';
import * as repo from './repository.js';
import { type RegistryInput, validateRegistry } from './validation.js';

export function toApiRegistry(row: repo.RegistryRow) {
  return {
    id: row.id,
    account_id: row.account_id,
    type: row.type,
    repository_name: row.repository_name,
    cloudA_account_id: row.cloud_a_account_id,
    cloudA_region: row.cloud_a_region,
    cloudB_location: row.cloud_b_location,
    cloudB_project_id: row.cloud_b_project_id,
    cloudB_project_number: row.cloud_b_project_number,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function createRegistryService({ db, accounts }: { db: Database; accounts: AccountService }) {
  return {
    async create(actor: Actor, accountId: string, input: RegistryInput) {
      const account = await accounts.requireAccount(actor, accountId, 'editor');
      const fields = validateRegistry(input);
      try {
        const row = await repo.insertRegistry(db, {
          accountId: account.id,
          id: newId(),
          type: input.type,
          createdBy: actor.userId,
          fields,
        });
        return toApiRegistry(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new ApiError('conflict', 'this registry is already registered');
        throw error;
      }
    },

    async list(actor: Actor, accountId: string) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      return (await repo.listRegistries(db, account.id)).map(toApiRegistry);
    },

    async get(actor: Actor, accountId: string, registryId: string) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const row = isUuid(registryId) ? await repo.findRegistry(db, account.id, registryId) : undefined;
      if (!row) throw new ApiError('not_found', 'registry not found');
      return toApiRegistry(row);
    },
  };
}

export type RegistryService = ReturnType<typeof createRegistryService>;
