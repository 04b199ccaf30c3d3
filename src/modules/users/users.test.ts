import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

interface Role {
  account_id: string;
  account_name?: string;
  level: 'tenant' | 'account';
  name: 'admin' | 'editor' | 'viewer';
}

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const rolesUrl = (accountId: string, userId: string) => `/accounts/${accountId}/users/${userId}/roles`;

async function rolesOf(tenant: TestTenant, userId: string): Promise<Role[]> {
  const res = await t.request({
    method: 'GET',
    url: rolesUrl(tenant.accountId, userId),
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body.roles;
}

/** Comparable role sets: names dropped, sorted. */
const normalised = (roles: Role[]) =>
  roles.map(({ account_id, level, name }) => `${level}:${account_id}:${name}`).sort();

const putRoles = (token: string, accountId: string, userId: string, roles: unknown) =>
  t.request({ method: 'PUT', url: rolesUrl(accountId, userId), token, body: { roles } });

async function tenantName(tenantId: string): Promise<string> {
  const { rows } = await t.db.query<{ name: string }>('select name from tenants where id = $1', [tenantId]);
  return rows[0]!.name;
}

describe('GET /accounts/{account_id}/users and .../users/{user_id}/roles', () => {
  let tenant: TestTenant;
  let accountB: string;
  before(async () => {
    tenant = await createTenant(t);
    accountB = await tenant.addAccount('bravo');
  });

  test('members carry their roles on the account, locked and last_login_at; others are not members', async () => {
    const viewer = await tenant.addUser([{ level: 'account', role: 'viewer' }], { name: 'viewer-a' });
    const mixed = await tenant.addUser(
      [
        { level: 'tenant', role: 'viewer' },
        { level: 'account', role: 'admin' },
        { level: 'account', accountId: accountB, role: 'editor' },
      ],
      { name: 'mixed' },
    );
    const outsider = await tenant.addUser([{ level: 'account', accountId: accountB, role: 'admin' }]);
    await t.tenancy.setUserLocked({ tenantId: tenant.tenantId, userId: viewer.userId, locked: true });

    const res = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/users`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.total_count, 3);
    assert.equal(res.body.has_more, false);
    const byId = new Map(res.body.entries.map((member: { id: string }) => [member.id, member]));
    assert.ok(!byId.has(outsider.userId), 'a role on another account only is no membership');
    const name = await tenantName(tenant.tenantId);
    const tenantRole = (role: Role['name']) => ({
      account_id: tenant.tenantId,
      account_name: name,
      level: 'tenant',
      name: role,
    });
    const accountRole = (role: Role['name']) => ({
      account_id: tenant.accountId,
      account_name: 'main',
      level: 'account',
      name: role,
    });

    const admin = byId.get(tenant.admin.userId) as Record<string, unknown>;
    assert.deepEqual(admin.roles, [tenantRole('admin')]);
    assert.equal(admin.locked, false);
    assert.ok(typeof admin.last_login_at === 'string', 'the admin has logged in');
    const lockedViewer = byId.get(viewer.userId) as Record<string, unknown>;
    assert.deepEqual(lockedViewer.roles, [accountRole('viewer')]);
    assert.equal(lockedViewer.locked, true);
    const mixedMember = byId.get(mixed.userId) as { roles: Role[] };
    assert.deepEqual(
      normalised(mixedMember.roles),
      normalised([tenantRole('viewer'), accountRole('admin')] as Role[]),
      'the role on another account is not listed under this one',
    );
  });

  test("GET roles: one user's assignments; unknown, garbage or other-tenant user -> 404", async () => {
    const user = await tenant.addUser([
      { level: 'tenant', role: 'editor' },
      { level: 'account', accountId: accountB, role: 'admin' },
    ]);
    const roles = await rolesOf(tenant, user.userId);
    assert.deepEqual(
      normalised(roles),
      [`account:${accountB}:admin`, `tenant:${tenant.tenantId}:editor`].sort(),
    );
    assert.equal(roles.find((r) => r.level === 'account')?.account_name, 'bravo');

    const other = await createTenant(t);
    for (const userId of ['00000000-0000-4000-8000-000000000000', 'garbage', other.admin.userId]) {
      const res = await t.request({
        method: 'GET',
        url: rolesUrl(tenant.accountId, userId),
        token: tenant.adminToken,
      });
      assert.equal(res.status, 404, userId);
      assert.equal(res.body.code, 'not_found');
    }
  });
});

describe('PUT /accounts/{account_id}/users/{user_id}/roles', () => {
  let tenant: TestTenant;
  let accountB: string;
  before(async () => {
    tenant = await createTenant(t);
    accountB = await tenant.addAccount('bravo');
  });

  test('a tenant admin replaces the whole set and gets {}', async () => {
    const user = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    const wanted = [
      { level: 'account', account_id: tenant.accountId, name: 'editor' },
      { level: 'account', account_id: accountB, name: 'viewer', account_name: 'ignored' },
      { level: 'tenant', name: 'viewer' },
      { level: 'tenant', account_id: tenant.tenantId, name: 'viewer' },
    ];
    const res = await putRoles(tenant.adminToken, tenant.accountId, user.userId, wanted);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {});
    assert.deepEqual(
      normalised(await rolesOf(tenant, user.userId)),
      [
        `account:${tenant.accountId}:editor`,
        `account:${accountB}:viewer`,
        `tenant:${tenant.tenantId}:viewer`,
      ].sort(),
    );
    assert.equal((await putRoles(tenant.adminToken, tenant.accountId, user.userId, [])).status, 200);
    assert.deepEqual(await rolesOf(tenant, user.userId), []);
  });

  test('every item is validated; one bad item changes nothing', async () => {
    const user = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    const before = await rolesOf(tenant, user.userId);
    const other = await createTenant(t);
    const good = { level: 'tenant', name: 'admin' };
    const cases: [unknown, [string, string][]][] = [
      [
        [good, { level: 'global', name: 'owner' }],
        [
          ['roles[1].level', 'invalid_value'],
          ['roles[1].name', 'invalid_value'],
        ],
      ],
      [[good, { level: 'account', name: 'viewer' }], [['roles[1].account_id', 'required']]],
      [
        [{ level: 'account', account_id: '00000000-0000-4000-8000-000000000000', name: 'viewer' }, good],
        [['roles[0].account_id', 'invalid_value']],
      ],
      [
        [{ level: 'account', account_id: other.accountId, name: 'viewer' }],
        [['roles[0].account_id', 'invalid_value']],
      ],
      [
        [{ level: 'account', account_id: 'garbage', name: 'viewer' }],
        [['roles[0].account_id', 'invalid_value']],
      ],
      [
        [{ level: 'tenant', account_id: other.tenantId, name: 'viewer' }],
        [['roles[0].account_id', 'invalid_value']],
      ],
      [[{ level: 'tenant', name: 'viewer', extra: 1 }], [['roles[0].extra', 'unknown_field']]],
      [[{ level: 'tenant', name: 'viewer', account_id: 7 }], [['roles[0].account_id', 'invalid_type']]],
      ['admin', [['roles', 'invalid_type']]],
    ];
    for (const [roles, expected] of cases) {
      const res = await putRoles(tenant.adminToken, tenant.accountId, user.userId, roles);
      assert.equal(res.status, 400, JSON.stringify(roles));
      assert.equal(res.body.code, 'validation_failed');
      const details = res.body.validation_details.map((d: { field: string; code: string }) => [
        d.field,
        d.code,
      ]);
      assert.deepEqual(details.sort(), expected, JSON.stringify(roles));
    }
    const missing = await t.request({
      method: 'PUT',
      url: rolesUrl(tenant.accountId, user.userId),
      token: tenant.adminToken,
      body: {},
    });
    assert.deepEqual(
      missing.body.validation_details.map((d: { field: string }) => d.field),
      ['roles'],
    );
    assert.deepEqual(await rolesOf(tenant, user.userId), before);
  });

  test("an account admin changes roles on its account only: tenant roles and other accounts' -> 403", async () => {
    // A viewer on account B: B's roles are visible to it, but not its to grant or remove.
    const accountAdmin = await tenant.addUser([
      { level: 'account', role: 'admin' },
      { level: 'account', accountId: accountB, role: 'viewer' },
    ]);
    const target = await tenant.addUser([
      { level: 'tenant', role: 'viewer' },
      { level: 'account', role: 'viewer' },
      { level: 'account', accountId: accountB, role: 'viewer' },
    ]);
    const tenantViewer = { level: 'tenant', name: 'viewer' };
    const viewerB = { level: 'account', account_id: accountB, name: 'viewer' };
    const onA = (name: string) => ({ level: 'account', account_id: tenant.accountId, name });
    const before = await rolesOf(tenant, target.userId);

    const refused = [
      [tenantViewer, viewerB, onA('viewer'), { level: 'tenant', name: 'editor' }], // adds a tenant role
      [viewerB, onA('viewer')], // removes the tenant role
      [tenantViewer, viewerB, onA('viewer'), { level: 'account', account_id: accountB, name: 'admin' }],
      [tenantViewer, onA('viewer')], // removes the role on account B
      [tenantViewer, viewerB, onA('admin'), { level: 'tenant', name: 'admin' }], // a legal change plus an illegal one
    ];
    for (const roles of refused) {
      const res = await putRoles(accountAdmin.token, tenant.accountId, target.userId, roles);
      assert.equal(res.status, 403, JSON.stringify(roles));
      assert.equal(res.body.code, 'forbidden');
      assert.deepEqual(
        normalised(await rolesOf(tenant, target.userId)),
        normalised(before),
        'nothing changed',
      );
    }

    const allowed = await putRoles(accountAdmin.token, tenant.accountId, target.userId, [
      tenantViewer,
      viewerB,
      onA('editor'),
    ]);
    assert.equal(allowed.status, 200, allowed.text);
    assert.deepEqual(
      normalised(await rolesOf(tenant, target.userId)),
      [
        `account:${accountB}:viewer`,
        `account:${tenant.accountId}:editor`,
        `tenant:${tenant.tenantId}:viewer`,
      ].sort(),
    );
  });

  test('roles on accounts the caller cannot see are neither shown nor touched', async () => {
    const hidden = await tenant.addAccount('hidden');
    const accountAdmin = await tenant.addUser([{ level: 'account', role: 'admin' }]);
    const target = await tenant.addUser([
      { level: 'account', role: 'viewer' },
      { level: 'account', accountId: hidden, role: 'editor' },
    ]);
    const seen = await t.request({
      method: 'GET',
      url: rolesUrl(tenant.accountId, target.userId),
      token: accountAdmin.token,
    });
    assert.equal(seen.status, 200);
    assert.deepEqual(normalised(seen.body.roles), [`account:${tenant.accountId}:viewer`]);
    assert.ok(!seen.text.includes(hidden) && !seen.text.includes('hidden'), 'no trace of the hidden account');

    const onA = { level: 'account', account_id: tenant.accountId, name: 'editor' };
    const replaced = await putRoles(accountAdmin.token, tenant.accountId, target.userId, [onA]);
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(
      normalised(await rolesOf(tenant, target.userId)),
      [`account:${tenant.accountId}:editor`, `account:${hidden}:editor`].sort(),
      'the hidden role is kept',
    );
    const naming = await putRoles(accountAdmin.token, tenant.accountId, target.userId, [
      onA,
      { level: 'account', account_id: hidden, name: 'admin' },
    ]);
    const unknown = await putRoles(accountAdmin.token, tenant.accountId, target.userId, [
      onA,
      { level: 'account', account_id: '00000000-0000-4000-8000-000000000000', name: 'admin' },
    ]);
    for (const res of [naming, unknown]) {
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.validation_details, unknown.body.validation_details);
    }
  });

  test("removing the tenant's last (unlocked) admin -> 409 conflict and nothing changed", async () => {
    const solo = await createTenant(t);
    const self = solo.admin.userId;
    for (const roles of [
      [],
      [{ level: 'tenant', name: 'editor' }],
      [{ level: 'account', account_id: solo.accountId, name: 'admin' }],
    ]) {
      const res = await putRoles(solo.adminToken, solo.accountId, self, roles);
      assert.equal(res.status, 409, JSON.stringify(roles));
      assert.equal(res.body.code, 'conflict');
      assert.deepEqual(normalised(await rolesOf(solo, self)), [`tenant:${solo.tenantId}:admin`]);
    }

    const second = await solo.addUser([{ level: 'tenant', role: 'admin' }]);
    await t.tenancy.setUserLocked({ tenantId: solo.tenantId, userId: second.userId, locked: true });
    assert.equal(
      (await putRoles(solo.adminToken, solo.accountId, self, [])).status,
      409,
      'a locked admin does not count',
    );
    await t.tenancy.setUserLocked({ tenantId: solo.tenantId, userId: second.userId, locked: false });
    const demoted = await putRoles(solo.adminToken, solo.accountId, self, [
      { level: 'tenant', name: 'viewer' },
    ]);
    assert.equal(demoted.status, 200, demoted.text);
    // The demoted caller's own session now reads as a viewer: enough to see the result.
    assert.deepEqual(normalised(await rolesOf(solo, self)), [`tenant:${solo.tenantId}:viewer`]);
    const again = await putRoles(solo.adminToken, solo.accountId, second.userId, []);
    assert.equal(again.status, 403, 'the demoted caller can no longer change roles');
  });

  test('a viewer or an editor -> 403; an unknown or other-tenant user -> 404; nothing changed', async () => {
    const target = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    const roles = [{ level: 'tenant', name: 'admin' }];
    for (const role of ['viewer', 'editor'] as const) {
      const caller = await tenant.addUser([{ level: 'tenant', role }]);
      const res = await putRoles(caller.token, tenant.accountId, target.userId, roles);
      assert.equal(res.status, 403, role);
      assert.equal(res.body.code, 'forbidden');
    }
    assert.deepEqual(normalised(await rolesOf(tenant, target.userId)), [
      `account:${tenant.accountId}:viewer`,
    ]);

    const other = await createTenant(t);
    for (const userId of ['00000000-0000-4000-8000-000000000000', 'garbage', other.admin.userId]) {
      const res = await putRoles(tenant.adminToken, tenant.accountId, userId, roles);
      assert.equal(res.status, 404, userId);
      assert.equal(res.body.code, 'not_found');
    }
    assert.deepEqual(normalised(await rolesOf(other, other.admin.userId)), [
      `tenant:${other.tenantId}:admin`,
    ]);
  });
});
