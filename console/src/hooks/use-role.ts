/**
 * The caller's role on an account (the stronger of its tenant role and its role on that account,
 * as its key narrows them), from GET /console/session, so views can hide what the role does not
 * allow. `null` while loading or when the call fails: then actions stay offered and a refusal from
 * the server is shown as any error (the API checks every call regardless).
 */
import type { Account, ConsoleCaller } from '../api/types.js';
import { useApi } from './use-api.js';

const RANK = { viewer: 1, editor: 2, admin: 3 } as const;
export type RoleName = keyof typeof RANK;

export function useRole(account: Account): RoleName | null {
  const { data } = useApi<ConsoleCaller>('/console/session');
  if (!data) return null;
  let best: RoleName | null = data.tenant_role;
  for (const { account_id, role } of data.account_roles) {
    if (account_id === account.id && (!best || RANK[role] > RANK[best])) best = role;
  }
  return best ?? 'viewer';
}

/** true unless the caller is known to hold less than `needed` */
export function allows(role: RoleName | null, needed: RoleName): boolean {
  return role === null || RANK[role] >= RANK[needed];
}
