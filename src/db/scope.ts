/**
 * The data scope of the work in progress, carried by an AsyncLocalStorage so every statement can
 * tell PostgreSQL whose rows it may touch (row-level security, docs/security.md). A request runs
 * in its caller's scope (set by the auth hook once the Actor is known); work that is no caller's
 * (authentication's key lookup, workers, imports, the CLI, demo seeding) runs in the system
 * scope, explicitly. No scope at all means no rows: the policies fail closed.
 *
 * @example
 *   await withSystemScope(() => db.query('select count(*) from accounts'));
 *   await withScope({ kind: 'tenant', tenantId, accountIds: [accountId] }, () => handler());
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor } from '../http/actor.js';
import { isUuid } from '../http/ids.js';
import type { Statement } from './database.js';

export type DataScope =
  | { kind: 'system' }
  /** accountIds 'all' = every account of the tenant (a tenant-scoped key) */
  | { kind: 'tenant'; tenantId: string; accountIds: 'all' | readonly string[] };

const storage = new AsyncLocalStorage<DataScope>();

export function currentScope(): DataScope | undefined {
  return storage.getStore();
}

export function withScope<T>(scope: DataScope, work: () => T): T {
  return storage.run(scope, work);
}

/**
 * The accounts an actor reaches: an account-scoped key its one account; a tenant-scoped key every
 * account of the tenant when its user holds a tenant-level role, else the accounts its user has
 * roles on (a key never widens its user's reach, src/http/actor.ts).
 */
export function scopeOfActor(
  actor: Pick<Actor, 'tenantId' | 'keyScope' | 'keyAccountId' | 'assignments'>,
): DataScope {
  let accountIds: 'all' | readonly string[];
  if (actor.keyScope === 'account') accountIds = actor.keyAccountId ? [actor.keyAccountId] : [];
  else if (actor.assignments.some((a) => a.level === 'tenant')) accountIds = 'all';
  else accountIds = [...new Set(actor.assignments.flatMap((a) => (a.accountId ? [a.accountId] : [])))];
  return { kind: 'tenant', tenantId: actor.tenantId, accountIds };
}

export function withSystemScope<T>(work: () => T): T {
  return storage.run({ kind: 'system' }, work);
}

/** The transaction-local settings the policies read (migration 0011). */
export interface ScopeSettings {
  'posture.system': 'on' | '';
  'posture.tenant_id': string;
  /** '*' = every account of posture.tenant_id, else a PostgreSQL uuid[] literal, '' = none */
  'posture.account_ids': string;
}

/**
 * The settings for a scope. Ids are checked to be UUIDs, so the values can be inlined in SQL
 * text without quoting concerns; anything else is a bug of the caller and throws.
 */
export function scopeSettings(scope: DataScope | undefined): ScopeSettings {
  if (!scope) return { 'posture.system': '', 'posture.tenant_id': '', 'posture.account_ids': '' };
  if (scope.kind === 'system') {
    return { 'posture.system': 'on', 'posture.tenant_id': '', 'posture.account_ids': '' };
  }
  const ids = scope.accountIds === 'all' ? [] : scope.accountIds;
  for (const id of [scope.tenantId, ...ids]) {
    if (!isUuid(id)) throw new Error(`data scope: not a UUID: ${JSON.stringify(id)}`);
  }
  return {
    'posture.system': '',
    'posture.tenant_id': scope.tenantId,
    'posture.account_ids': scope.accountIds === 'all' ? '*' : `{${ids.join(',')}}`,
  };
}

const SETTING_NAMES = ['posture.system', 'posture.tenant_id', 'posture.account_ids'] as const;

/** One statement setting every scope value for the current transaction only (simple protocol). */
export function setScopeSql(scope: DataScope | undefined): string {
  const settings = scopeSettings(scope);
  return `select ${SETTING_NAMES.map((name) => `set_config('${name}', '${settings[name]}', true)`).join(', ')}`;
}

const SET_SCOPE_SQL = `select ${SETTING_NAMES.map((name, at) => `set_config('${name}', $${at + 1}, true)`).join(', ')}`;

/**
 * The same settings as one statement with parameters, for the extended protocol: one text for
 * every caller, so each pooled connection keeps it prepared (prepared-statements.ts) rather than
 * parsing and planning a new text, one per scope, on every request (docs/performance.md, "Fix 38").
 */
export function scopeStatement(scope: DataScope | undefined): Statement {
  const settings = scopeSettings(scope);
  return { sql: SET_SCOPE_SQL, params: SETTING_NAMES.map((name) => settings[name]) };
}
