import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const tenantPath = (tenant: TestTenant) => `/tenants/${tenant.tenantId}/knowledge_base/collections`;
const accountPath = (tenant: TestTenant, accountId = tenant.accountId) =>
  `/tenants/${tenant.tenantId}/accounts/${accountId}/knowledge_base/collections`;

const create = (url: string, name: unknown, token: string) =>
  t.request({ method: 'POST', url, token, body: { name } });
const list = (url: string, token: string, query = '') =>
  t.request({ method: 'GET', url: `${url}${query}`, token });

describe('knowledge base collections', () => {
  test('tenant list holds every collection in name order, the account path only that account’s; paging', async () => {
    const tenant = await createTenant(t);
    const second = await tenant.addAccount();
    for (const name of ['runbooks', 'Advisories', 'cis-1.8']) {
      assert.equal((await create(tenantPath(tenant), name, tenant.adminToken)).status, 201);
    }
    const made = await create(accountPath(tenant), 'team.notes', tenant.adminToken);
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body, { name: 'team.notes' });
    assert.equal((await create(accountPath(tenant, second), 'other_team', tenant.adminToken)).status, 201);

    const all = await list(tenantPath(tenant), tenant.adminToken);
    assert.deepEqual(all.body, {
      current_offset: 0,
      has_more: false,
      total_count: 5,
      entries: ['Advisories', 'cis-1.8', 'other_team', 'runbooks', 'team.notes'],
    });
    const mine = await list(accountPath(tenant), tenant.adminToken);
    assert.deepEqual(mine.body, {
      current_offset: 0,
      has_more: false,
      total_count: 1,
      entries: ['team.notes'],
    });

    const page = await list(tenantPath(tenant), tenant.adminToken, '?limit=2&offset=1');
    assert.deepEqual(page.body, {
      current_offset: 1,
      has_more: true,
      total_count: 5,
      entries: ['cis-1.8', 'other_team'],
    });
    const past = await list(tenantPath(tenant), tenant.adminToken, '?limit=2&offset=10');
    assert.deepEqual(past.body, { current_offset: 10, has_more: false, total_count: 5, entries: [] });
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?offset=-1', 'offset'],
      ['?limit=x', 'limit'],
      ['?limit=1001', 'limit'],
    ] as const) {
      const res = await list(tenantPath(tenant), tenant.adminToken, query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.validation_details[0].field, field, query);
    }
  });

  test('names are validated and unique in the tenant (409 across both paths); deleting', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    for (const name of ['', ' spaced', 'a/b', '-lead', 'x'.repeat(129), 7, null]) {
      const res = await create(tenantPath(tenant), name, tenant.adminToken);
      assert.equal(res.status, 400, JSON.stringify(name));
      assert.equal(res.body.validation_details[0].field, 'name');
    }
    assert.equal((await create(tenantPath(tenant), 'shared', tenant.adminToken)).status, 201);
    for (const url of [tenantPath(tenant), accountPath(tenant)]) {
      const duplicate = await create(url, 'shared', tenant.adminToken);
      assert.equal(duplicate.status, 409, url);
      assert.equal(duplicate.body.code, 'conflict');
    }
    assert.equal(
      (await create(tenantPath(other), 'shared', other.adminToken)).status,
      201,
      'names are per tenant',
    );
    assert.equal(
      (await list(tenantPath(tenant), tenant.adminToken)).body.total_count,
      1,
      'nothing else stored',
    );

    // A tenant-wide collection is not the account's: the account path cannot delete it.
    const viaAccount = await t.request({
      method: 'DELETE',
      url: `${accountPath(tenant)}/shared`,
      token: tenant.adminToken,
    });
    assert.equal(viaAccount.status, 404);
    const removed = await t.request({
      method: 'DELETE',
      url: `${tenantPath(tenant)}/shared`,
      token: tenant.adminToken,
    });
    assert.equal(removed.status, 204);
    const again = await t.request({
      method: 'DELETE',
      url: `${tenantPath(tenant)}/shared`,
      token: tenant.adminToken,
    });
    assert.equal(again.status, 404);
    assert.deepEqual(
      (await list(tenantPath(other), other.adminToken)).body.entries,
      ['shared'],
      'other tenant untouched',
    );
  });

  test('a name of the longest allowed length is deleted by its path, and a long path is authenticated first', async () => {
    const tenant = await createTenant(t);
    const longest = `k${'n'.repeat(127)}`;
    assert.equal((await create(tenantPath(tenant), longest, tenant.adminToken)).status, 201);
    const anonymous = await t.request({ method: 'DELETE', url: `${tenantPath(tenant)}/${longest}` });
    assert.equal(anonymous.status, 401, 'routed (not a 404 for a long segment), then refused');
    const removed = await t.request({
      method: 'DELETE',
      url: `${tenantPath(tenant)}/${longest}`,
      token: tenant.adminToken,
    });
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await list(tenantPath(tenant), tenant.adminToken)).body.total_count, 0);
  });

  test('scope: other tenants 404; account admins manage their account path only; viewers read', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    assert.equal((await create(accountPath(tenant), 'kept', tenant.adminToken)).status, 201);
    const otherRead = await list(accountPath(tenant), other.adminToken);
    assert.equal(otherRead.status, 404);
    // Another tenant's account under one's own tenant id is as unknown as a missing one.
    assert.equal((await list(accountPath(other, tenant.accountId), other.adminToken)).status, 404);

    const accountAdmin = await tenant.addUser([{ level: 'account', role: 'admin' }], {
      keyAccountId: tenant.accountId,
    });
    assert.equal((await create(accountPath(tenant), 'by-account-admin', accountAdmin.token)).status, 201);
    assert.equal(
      (await list(tenantPath(tenant), accountAdmin.token)).status,
      403,
      'tenant path needs a tenant role',
    );
    assert.equal((await create(tenantPath(tenant), 'nope', accountAdmin.token)).status, 403);

    const viewer = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    assert.deepEqual((await list(accountPath(tenant), viewer.token)).body.entries, [
      'by-account-admin',
      'kept',
    ]);
    assert.equal((await create(accountPath(tenant), 'nope', viewer.token)).status, 403);
    const del = await t.request({
      method: 'DELETE',
      url: `${accountPath(tenant)}/kept`,
      token: viewer.token,
    });
    assert.equal(del.status, 403);
    assert.equal((await list(tenantPath(tenant), tenant.adminToken)).body.total_count, 2, 'nothing changed');
  });
});
