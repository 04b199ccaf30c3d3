/**
 * The Actor: who is calling, built once per request from the session (see auth-hook.ts), and the
 * role arithmetic every service uses. A key acts with its user's roles narrowed to its scope.
 */
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export type Level = 'tenant' | 'account';

export interface RoleAssignment {
  level: Level;
  /** null for a tenant-level assignment, which covers every account of the tenant */
  accountId: string | null;
  role: Role;
}

export interface Actor {
  userId: string;
  tenantId: string;
  accessKeyId: string;
  keyScope: Level;
  /** the one account an account-scoped key may act on */
  keyAccountId: string | null;
  assignments: readonly RoleAssignment[];
}

const rank = (role: Role): number => ROLES.indexOf(role);

export function atLeast(role: Role | null, needed: Role): boolean {
  return role !== null && rank(role) >= rank(needed);
}

function highest(roles: Role[]): Role | null {
  return roles.reduce<Role | null>(
    (best, role) => (best === null || rank(role) > rank(best) ? role : best),
    null,
  );
}

/** Can the key reach this account at all (before roles)? */
export function keyCoversAccount(actor: Actor, accountId: string): boolean {
  return actor.keyScope === 'tenant' || actor.keyAccountId === accountId;
}

/** The actor's effective role on an account of its tenant, or null when it has none. */
export function roleOnAccount(actor: Actor, accountId: string): Role | null {
  if (!keyCoversAccount(actor, accountId)) return null;
  // One pass, no arrays: every account-scoped request asks this (requireAccount).
  let best: Role | null = null;
  for (const a of actor.assignments) {
    if ((a.level === 'tenant' || a.accountId === accountId) && (best === null || rank(a.role) > rank(best))) {
      best = a.role;
    }
  }
  return best;
}

/** The actor's tenant-wide role (only through a tenant-scoped key), or null. */
export function roleOnTenant(actor: Actor): Role | null {
  if (actor.keyScope !== 'tenant') return null;
  return highest(actor.assignments.filter((a) => a.level === 'tenant').map((a) => a.role));
}

/** Could the actor grant (or remove) this assignment? Only an admin over its whole reach can. */
export function canGrant(actor: Actor, assignment: Pick<RoleAssignment, 'level' | 'accountId'>): boolean {
  if (assignment.level === 'tenant') return roleOnTenant(actor) === 'admin';
  return assignment.accountId !== null && roleOnAccount(actor, assignment.accountId) === 'admin';
}
