/**
 * The caller's role on an account (the strongest of its tenant-level roles and its roles on the
 * account), from GET .../users/{user_id}/roles, so views can hide what the role does not allow.
 * `null` while loading or when the caller is unknown (a tab opened after sign-in in another one):
 * then actions stay offered and a refusal from the server is shown as any error.
 */
import { signedInUserId } from '../api/session.js';
import type { Account, RoleAssignment } from '../api/types.js';
import { accountPath } from '../paths.js';
import { useApi } from './use-api.js';

const RANK = { viewer: 1, editor: 2, admin: 3 } as const;
export type RoleName = keyof typeof RANK;

export function useRole(account: Account): RoleName | null {
  const userId = signedInUserId();
  const { data } = useApi<{ roles: RoleAssignment[] }>(
    userId ? accountPath(account, `/users/${encodeURIComponent(userId)}/roles`) : null,
  );
  if (!data) return null;
  let best: RoleName | null = null;
  for (const role of data.roles) {
    if (role.level === 'account' && role.account_id !== account.id) continue;
    if (!best || RANK[role.name] > RANK[best]) best = role.name;
  }
  return best ?? 'viewer';
}

/** true unless the caller is known to hold less than `needed` */
export function allows(role: RoleName | null, needed: RoleName): boolean {
  return role === null || RANK[role] >= RANK[needed];
}
