/**
 * Checks that the ids of one command belong to the tenant it names. The tenancy service trusts its
 * operator caller and the schema only checks each id on its own, so without these a role or a key
 * could join a user of one tenant to an account of another.
 */
import type { Executor } from '../db/database.js';
import { ApiError } from '../http/errors.js';
import { findAccountInTenant } from '../modules/accounts/repository.js';
import { findUserInTenant } from '../modules/users/repository.js';

export async function requireUserInTenant(db: Executor, tenantId: string, userId: string): Promise<void> {
  if (!(await findUserInTenant(db, tenantId, userId))) {
    throw new ApiError('not_found', `no user ${userId} in tenant ${tenantId}`);
  }
}

export async function requireAccountInTenant(
  db: Executor,
  tenantId: string,
  accountId: string,
): Promise<void> {
  if (!(await findAccountInTenant(db, tenantId, accountId))) {
    throw new ApiError('not_found', `no account ${accountId} in tenant ${tenantId}`);
  }
}
