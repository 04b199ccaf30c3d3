/**
 * Every authenticated route, once. The security suite (routes.security.test.ts) runs the common
 * cases against each line: no token, bad token, expired token, revoked key, another tenant,
 * another account under an account key, and a role one step too low. A route missing here fails
 * the suite, so a new endpoint is covered by adding one line.
 */
import type { Role } from '../../src/http/actor.js';

export interface SecurityFixture {
  accountId: string;
  userId: string;
  accessKeyId: string;
}

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** OpenAPI-style path; `{account_id}`, `{user_id}`, `{id}` are filled from the fixture */
  path: string;
  /** the lowest role that may call it */
  role: Role;
  /** true when the route names an account (out-of-scope callers get 404) */
  accountScoped: boolean;
  /**
   * For routes that are not account-scoped, what another tenant's caller gets: 404, an empty list,
   * or (for an id in the body) a 400 that reads exactly like an unknown id.
   */
  otherTenant?: 'not_found' | 'empty_list' | 'unknown_reference';
  body?: (fixture: SecurityFixture) => unknown;
}

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/accounts', role: 'viewer', accountScoped: false, otherTenant: 'empty_list' },
  { method: 'GET', path: '/accounts/{account_id}', role: 'viewer', accountScoped: true },
  { method: 'GET', path: '/accounts/{account_id}/users', role: 'viewer', accountScoped: true },
  {
    method: 'GET',
    path: '/accounts/{account_id}/users/{user_id}/roles',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'PUT',
    path: '/accounts/{account_id}/users/{user_id}/roles',
    role: 'admin',
    accountScoped: true,
    body: () => ({ roles: [{ level: 'tenant', name: 'admin' }] }),
  },
  {
    method: 'POST',
    path: '/accounts/access_keys',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'unknown_reference',
    body: (f) => ({ name: 'security', scope: 'account', account_id: f.accountId }),
  },
  {
    method: 'GET',
    path: '/accounts/access_keys',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'empty_list',
  },
  {
    method: 'GET',
    path: '/accounts/access_keys/{id}',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'PUT',
    path: '/accounts/access_keys/{id}/revoke',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
  },
];

export function fillPath(path: string, fixture: SecurityFixture): string {
  return path
    .replace('{account_id}', fixture.accountId)
    .replace('{user_id}', fixture.userId)
    .replace('{id}', fixture.accessKeyId);
}
