/**
 * Account members and their role sets (#23 and the access-review calls). A PUT replaces the
 * user's whole role set within the caller's reach (tenant-wide roles and roles on accounts it can
 * see), atomically; every assignment it adds or removes must be one the caller could grant itself
 * (else 403, nothing changed); and the tenant always keeps an unlocked tenant-level admin (else
 * 409). Details: docs/auth.md.
 */
import type { Database } from '../../db/database.js';
import { type Actor, canGrant, type Level, type Role, roleOnAccount } from '../../http/actor.js';
import { ApiError, type ValidationDetail } from '../../http/errors.js';
import { iso, isUuid } from '../../http/ids.js';
import { type OffsetPage, offsetList } from '../../http/paging.js';
import type { AccountService } from '../accounts/service.js';
import { announceSessionChange } from '../auth/revocations.js';
import { insertRoleAssignment } from '../tenancy/repository.js';
import * as repo from './repository.js';

export interface RoleAssignmentInput {
  account_id?: string | undefined;
  account_name?: string | undefined;
  level: Level;
  name: Role;
}

interface Assignment {
  level: Level;
  accountId: string | null;
  role: Role;
}

const keyOf = (a: Assignment) => `${a.level}|${a.accountId ?? ''}|${a.role}`;

function toApiRole(row: repo.AssignmentRow, tenantId: string) {
  return {
    account_id: row.account_id ?? tenantId,
    account_name: row.scope_name,
    level: row.level,
    name: row.role,
  };
}

function toApiMember(row: repo.MemberRow, tenantId: string) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    locked: row.locked,
    last_login_at: iso(row.last_login_at),
    created_at: iso(row.created_at)!,
    roles: row.roles.map((role) => toApiRole(role, tenantId)),
  };
}

/**
 * Assignments the caller can see: tenant-wide ones, and those on accounts it has a role on through
 * its key. Roles on other accounts are neither shown (their ids and names would leak accounts
 * outside the caller's scope) nor touched by a replace.
 */
const withinReach = (actor: Actor, a: { level: Level; account_id: string | null }) =>
  a.level === 'tenant' || (a.account_id !== null && roleOnAccount(actor, a.account_id) !== null);

export function createUserService({ db, accounts }: { db: Database; accounts: AccountService }) {
  async function requireUser(actor: Actor, userId: string) {
    const user = isUuid(userId) ? await repo.findUserInTenant(db, actor.tenantId, userId) : undefined;
    if (!user) throw new ApiError('not_found', 'user not found');
    return user;
  }

  /** Validates the requested items against the tenant; returns the new set, deduplicated. */
  async function resolveRequested(actor: Actor, items: RoleAssignmentInput[]): Promise<Assignment[]> {
    const accountIds = items.flatMap((item) =>
      item.level === 'account' && item.account_id && isUuid(item.account_id) ? [item.account_id] : [],
    );
    const known = await repo.accountIdsInTenant(db, actor.tenantId, accountIds);
    const details: ValidationDetail[] = [];
    const requested = new Map<string, Assignment>();
    items.forEach((item, index) => {
      const field = `roles[${index}].account_id`;
      if (item.level === 'tenant') {
        if (item.account_id !== undefined && item.account_id !== actor.tenantId) {
          details.push({
            code: 'invalid_value',
            field,
            message: 'a tenant-level role names the tenant id',
            param: 'body',
          });
          return;
        }
        const assignment: Assignment = { level: 'tenant', accountId: null, role: item.name };
        requested.set(keyOf(assignment), assignment);
        return;
      }
      if (item.account_id === undefined) {
        details.push({
          code: 'required',
          field,
          message: 'is required for an account-level role',
          param: 'body',
        });
      } else if (!known.has(item.account_id) || roleOnAccount(actor, item.account_id) === null) {
        details.push({
          code: 'invalid_value',
          field,
          message: 'is not an account you can see',
          param: 'body',
        });
      } else {
        const assignment: Assignment = { level: 'account', accountId: item.account_id, role: item.name };
        requested.set(keyOf(assignment), assignment);
      }
    });
    if (details.length > 0) throw ApiError.validation(details);
    return [...requested.values()];
  }

  return {
    async listMembers(actor: Actor, accountId: string, page: OffsetPage) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const { rows, total } = await repo.listMembers(db, actor.tenantId, account.id, page);
      return offsetList(
        rows.map((row) => toApiMember(row, actor.tenantId)),
        total,
        page,
      );
    },

    async getRoles(actor: Actor, accountId: string, userId: string) {
      await accounts.requireAccount(actor, accountId, 'viewer');
      const user = await requireUser(actor, userId);
      const rows = await repo.assignmentsOfUser(db, user.id);
      return {
        roles: rows.filter((row) => withinReach(actor, row)).map((row) => toApiRole(row, actor.tenantId)),
      };
    },

    async replaceRoles(actor: Actor, accountId: string, userId: string, items: RoleAssignmentInput[]) {
      await accounts.requireAccount(actor, accountId, 'admin');
      const user = await requireUser(actor, userId);
      const requested = await resolveRequested(actor, items);
      await db.transaction(async (tx) => {
        await repo.lockTenant(tx, actor.tenantId);
        const current = (await repo.assignmentsOfUser(tx, user.id))
          .filter((row) => withinReach(actor, row))
          .map((row): Assignment => ({ level: row.level, accountId: row.account_id, role: row.role }));
        const currentKeys = new Set(current.map(keyOf));
        const requestedKeys = new Set(requested.map(keyOf));
        const added = requested.filter((a) => !currentKeys.has(keyOf(a)));
        const removed = current.filter((a) => !requestedKeys.has(keyOf(a)));
        if ([...added, ...removed].some((a) => !canGrant(actor, a))) {
          throw new ApiError('forbidden', 'the change includes roles you cannot grant or remove');
        }
        for (const assignment of removed) await repo.deleteAssignment(tx, user.id, assignment);
        for (const assignment of added) {
          await insertRoleAssignment(tx, { tenantId: actor.tenantId, userId: user.id, ...assignment });
        }
        if ((await repo.countActiveTenantAdmins(tx, actor.tenantId)) === 0) {
          throw new ApiError('conflict', 'the tenant must keep at least one tenant-level admin');
        }
      });
      // The user's sessions act with the new role set from their next request.
      announceSessionChange({ userId: user.id });
      return {};
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
