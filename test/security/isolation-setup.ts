/**
 * The world of the isolation matrix: a victim tenant whose account A holds the whole sample, a
 * sibling account B of the same tenant and an attacker tenant X holding the sample too (each with
 * ids of its own, see populated-tenant.ts); the callers; and what each caller must never see.
 */
import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/http/actor.js';
import { hashToken } from '../../src/security/secrets.js';
import { createTenant, type TestApp } from '../support/harness.js';
import { operationKey as keyOf, type Side } from './attack-requests.js';
import { findDetailHits, harvestAccount } from './harvest.js';
import type { Operation } from './openapi-operations.js';
import { populateAccount } from './populated-tenant.js';

export interface Actor {
  name: string;
  headers: Record<string, string>;
  /** anonymous: no valid session; outside: no access to account A; inside: a role on A */
  kind: 'anonymous' | 'outside' | 'inside';
  /** the error code an anonymous caller must get */
  code?: 'unauthenticated' | 'token_expired';
  role: Role;
  /** a tenant-level role through a tenant-scoped key (tenant routes are open to it) */
  tenantWide?: boolean;
  own: Side;
  /** ids and names this caller must never receive */
  secrets: Set<string>;
}

export interface World {
  victim: Side;
  actors: Actor[];
  /** victim-admin token, for the before/after snapshot */
  victimToken: string;
  misses: string[];
  detailRoutes: number;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function side(
  t: TestApp,
  token: string,
  scope: { accountId: string; tenantId: string },
  clusterName: string,
  context: { ops: Operation[]; random: () => number; protect: Set<string> },
  tries: number,
) {
  const { ops, random, protect } = context;
  const { accountId } = scope;
  const populated = await populateAccount(t, token, accountId, clusterName);
  const harvest = await harvestAccount(t, token, scope, ops, protect);
  const { hits, misses } = await findDetailHits(t, token, scope, ops, harvest, random, tries);
  const result: Side = {
    accountId,
    tenantId: scope.tenantId,
    clusterId: populated.clusterId,
    harvest,
    hits: new Map(hits.map((hit) => [keyOf(hit.op), hit.values])),
  };
  return { side: result, misses, detailRoutes: hits.length + misses.length, clusterName };
}

export async function buildWorld(t: TestApp, ops: Operation[], random: () => number): Promise<World> {
  const tag = randomBytes(4).toString('hex');
  const victimTenant = await createTenant(t);
  const accountB = await victimTenant.addAccount();
  const attackerTenant = await createTenant(t);
  // Users before harvesting, so account A's member list (and its ids) is in the harvest.
  const onA = (role: Role) =>
    victimTenant.addUser([{ level: 'account', accountId: victimTenant.accountId, role }]);
  const onB = (role: Role) => victimTenant.addUser([{ level: 'account', accountId: accountB, role }]);
  const insideViewer = await onA('viewer');
  const insideEditor = await onA('editor');
  const siblings = { viewer: await onB('viewer'), editor: await onB('editor'), admin: await onB('admin') };
  const siblingKey = await victimTenant.addUser([{ level: 'tenant', role: 'admin' }], {
    keyAccountId: accountB,
  });
  const expired = await victimTenant.addUser([{ level: 'tenant', role: 'admin' }]);
  await t.db.query(`update sessions set expires_at = now() - interval '1 minute' where token_hash = $1`, [
    hashToken(expired.token),
  ]);
  const revoked = await victimTenant.addUser([{ level: 'tenant', role: 'admin' }]);
  await t.tenancy.revokeAccessKey({ tenantId: victimTenant.tenantId, accessKeyId: revoked.accessKeyId });

  // A spare key per tenant, for the key routes to aim at, and an A-only member for the role
  // routes; the callers' own users and keys are never offered as path values, so no legitimate
  // write (a revoke, a role change) changes who a caller is mid-run.
  for (const tenant of [victimTenant, attackerTenant])
    await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
  await onA('viewer');
  const victimCallers = [
    victimTenant.admin,
    insideViewer,
    insideEditor,
    siblingKey,
    expired,
    ...Object.values(siblings),
  ];
  const protect = new Set(
    [...victimCallers, attackerTenant.admin].flatMap((user) => [user.accessKeyId, user.userId]),
  );
  const context = { ops, random, protect };
  const victimScope = { accountId: victimTenant.accountId, tenantId: victimTenant.tenantId };
  const a = await side(t, victimTenant.adminToken, victimScope, `victim-a-${tag}`, context, 40);
  const b = await side(
    t,
    victimTenant.adminToken,
    { ...victimScope, accountId: accountB },
    `victim-b-${tag}`,
    context,
    6,
  );
  const attackerScope = { accountId: attackerTenant.accountId, tenantId: attackerTenant.tenantId };
  const x = await side(t, attackerTenant.adminToken, attackerScope, `attacker-${tag}`, context, 6);

  const minus = (values: Iterable<string>, ...others: Set<string>[]) =>
    new Set([...values].filter((value) => !others.some((other) => other.has(value))));
  // Account A's own: its ids that neither B nor X also shows (tenant admins, shared feeds), and its cluster's name.
  const accountSecrets = minus(a.side.harvest.ids, b.side.harvest.ids, x.side.harvest.ids);
  accountSecrets.add(a.clusterName);
  const tenantSecrets = minus(
    [...accountSecrets, ...b.side.harvest.ids, victimTenant.tenantId, b.clusterName, revoked.accessKeyId],
    x.side.harvest.ids,
  );
  // the victim tenant's callers are kept out of the pools, not out of what the other tenant must not see
  for (const user of victimCallers) {
    tenantSecrets.add(user.userId).add(user.accessKeyId);
  }
  const tenantName = [...(a.side.harvest.byField.get('account_name') ?? [])].find((name) =>
    name.startsWith('tenant-'),
  );
  if (tenantName) tenantSecrets.add(tenantName);

  const anonymous = (name: string, headers: Record<string, string>, code: Actor['code']): Actor => ({
    name,
    headers,
    kind: 'anonymous',
    code,
    role: 'viewer',
    own: a.side,
    secrets: tenantSecrets,
  });
  const tampered = `${victimTenant.adminToken.slice(0, -1)}${victimTenant.adminToken.endsWith('A') ? 'B' : 'A'}`;
  const actors: Actor[] = [
    anonymous('no token', {}, 'unauthenticated'),
    anonymous('expired token', bearer(expired.token), 'token_expired'),
    anonymous('revoked key', bearer(revoked.token), 'unauthenticated'),
    anonymous('tampered token', bearer(tampered), 'unauthenticated'),
    anonymous('tampered cookie', { cookie: `ory_kratos_session=${tampered}` }, 'unauthenticated'),
    {
      name: "other tenant's tenant admin",
      headers: bearer(attackerTenant.adminToken),
      kind: 'outside',
      role: 'admin',
      tenantWide: true,
      own: x.side,
      secrets: tenantSecrets,
    },
    {
      name: "account B's key of a tenant admin",
      headers: bearer(siblingKey.token),
      kind: 'outside',
      role: 'admin',
      own: b.side,
      secrets: accountSecrets,
    },
    ...(['viewer', 'editor', 'admin'] as const).map(
      (role): Actor => ({
        name: `${role} of account B`,
        headers: bearer(siblings[role].token),
        kind: 'outside',
        role,
        own: b.side,
        secrets: accountSecrets,
      }),
    ),
    {
      name: 'viewer of account A',
      headers: bearer(insideViewer.token),
      kind: 'inside',
      role: 'viewer',
      own: a.side,
      secrets: new Set(),
    },
    {
      name: 'editor of account A',
      headers: bearer(insideEditor.token),
      kind: 'inside',
      role: 'editor',
      own: a.side,
      secrets: new Set(),
    },
  ];
  return {
    victim: a.side,
    actors,
    victimToken: victimTenant.adminToken,
    misses: a.misses,
    detailRoutes: a.detailRoutes,
  };
}
