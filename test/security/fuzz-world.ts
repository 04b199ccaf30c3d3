/**
 * The world of the fuzz suite: one app on a fresh database, one tenant whose account holds the
 * whole sample (populated-tenant.ts), the callers (signed in once, tokens reused) and what the
 * generator knows of the tenant: its real ids by field name (harvest.ts) and, per detail route,
 * path values that answer 2xx to its admin.
 */
import { ROLES, type Role } from '../../src/http/actor.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import type { FuzzContext } from './fuzz-requests.js';
import { candidatesFor, findDetailHits, harvestAccount } from './harvest.js';
import { loadOperations, type Operation } from './openapi-operations.js';
import { populateAccount } from './populated-tenant.js';

export interface FuzzCaller {
  name: string;
  headers: Record<string, string>;
  role: Role | 'none';
}

export interface FuzzWorld {
  t: TestApp;
  operations: Operation[];
  accountId: string;
  clusterId: string;
  callers: FuzzCaller[];
  context: FuzzContext;
  /** detail routes for which no owner hit was found (valid requests there are 404s) */
  misses: string[];
}

export async function buildFuzzWorld(random: () => number): Promise<FuzzWorld> {
  // Rate limits off (the harness's default) and a login-failure limit no fuzz run reaches, so
  // authenticate keeps checking bodies instead of answering 429 after the tenth wrong secret.
  const t = await startTestApp({ LOGIN_MAX_FAILURES: 1_000_000 });
  const { operations } = await loadOperations(t);
  const tenant = await createTenant(t);
  const scope = { accountId: tenant.accountId, tenantId: tenant.tenantId };
  const onAccount = (role: Role) => tenant.addUser([{ level: 'account', accountId: tenant.accountId, role }]);
  const users = { admin: tenant.admin, editor: await onAccount('editor'), viewer: await onAccount('viewer') };
  // A spare key whose credentials valid authenticate bodies carry (and the admin may revoke).
  const spare = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
  const populated = await populateAccount(t, tenant.adminToken, tenant.accountId, 'fuzz-cluster');
  // The callers' own keys and users are never offered as path values: a legitimate revoke or role
  // change would end a caller mid-run.
  const protect = new Set(Object.values(users).flatMap((user) => [user.accessKeyId, user.userId]));
  const harvest = await harvestAccount(t, tenant.adminToken, scope, operations, protect);
  const { hits, misses } = await findDetailHits(t, tenant.adminToken, scope, operations, harvest, random, 40);

  const fixed: Record<string, string[]> = {
    account_id: [scope.accountId],
    tenant_id: [scope.tenantId],
    cluster_id: [populated.clusterId],
    access_key_id: [spare.accessKeyId],
    secret_key: [spare.secretKey],
  };
  const known = (field: string): readonly string[] => fixed[field] ?? [...(harvest.byField.get(field) ?? [])];
  const callers: FuzzCaller[] = [
    ...ROLES.map((role) => ({
      name: role,
      headers: { authorization: `Bearer ${users[role].token}` },
      role,
    })),
    { name: 'anonymous', headers: {}, role: 'none' },
  ];
  const context: FuzzContext = {
    known,
    hits: new Map(hits.map((hit) => [`${hit.op.method} ${hit.op.path}`, hit.values])),
    candidates: (op, name) =>
      fixed[name] ?? candidatesFor(harvest, op, name).filter((value) => !protect.has(value)),
  };
  return {
    t,
    operations,
    accountId: scope.accountId,
    clusterId: populated.clusterId,
    callers,
    context,
    misses,
  };
}
