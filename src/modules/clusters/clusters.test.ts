import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const create = (tenant: TestTenant, name: unknown, token = tenant.adminToken, accountId = tenant.accountId) =>
  t.request({ method: 'POST', url: `/accounts/${accountId}/clusters`, token, body: { name } });

const list = (tenant: TestTenant, query = '') =>
  t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/clusters${query}`,
    token: tenant.adminToken,
  });

describe('clusters', () => {
  test('create, get, and a duplicate name is 409', async () => {
    const tenant = await createTenant(t);
    const created = await create(tenant, 'prod-eu-1');
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      { ...created.body, id: undefined, created_at: undefined },
      {
        id: undefined,
        account_id: tenant.accountId,
        name: 'prod-eu-1',
        created_at: undefined,
        last_ingested_at: null,
      },
    );
    const got = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/clusters/${created.body.id}`,
      token: tenant.adminToken,
    });
    assert.deepEqual(got.body, created.body);
    const duplicate = await create(tenant, 'prod-eu-1');
    assert.deepEqual([duplicate.status, duplicate.body.code], [409, 'conflict']);
    // Names are unique per account, not per tenant.
    const otherAccount = await tenant.addAccount();
    assert.equal((await create(tenant, 'prod-eu-1', tenant.adminToken, otherAccount)).status, 201);
  });

  test('invalid names and unknown fields are 400; an editor may create, a viewer may not', async () => {
    const tenant = await createTenant(t);
    for (const name of ['', ' padded ', 'a'.repeat(101), 'semi;colon', 42, null]) {
      const res = await create(tenant, name);
      assert.equal(res.status, 400, JSON.stringify(name));
      assert.equal(res.body.validation_details[0].field, 'name');
    }
    const extra = await t.request({
      method: 'POST',
      url: `/accounts/${tenant.accountId}/clusters`,
      token: tenant.adminToken,
      body: { name: 'ok', id: 'mine' },
    });
    assert.equal(extra.body.validation_details[0].code, 'unknown_field');
    const editor = await tenant.addUser([{ level: 'account', role: 'editor' }]);
    assert.equal((await create(tenant, 'by-editor', editor.token)).status, 201);
    const viewer = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    assert.equal((await create(tenant, 'by-viewer', viewer.token)).status, 403);
    assert.equal((await list(tenant)).body.total_count, 1);
  });

  test('list: page list sorted by name, paging edges, q, sort allow-list', async () => {
    const tenant = await createTenant(t);
    for (const name of ['delta', 'alpha', 'charlie', 'bravo', 'echo'])
      assert.equal((await create(tenant, name)).status, 201);
    const all = await list(tenant);
    assert.deepEqual(
      all.body.entries.map((c: { name: string }) => c.name),
      ['alpha', 'bravo', 'charlie', 'delta', 'echo'],
    );
    assert.deepEqual(
      [all.body.page, all.body.page_size, all.body.page_count, all.body.total_count],
      [1, 50, 1, 5],
    );
    const page2 = await list(tenant, '?page=2&page_size=2');
    assert.deepEqual(
      page2.body.entries.map((c: { name: string }) => c.name),
      ['charlie', 'delta'],
    );
    assert.equal(page2.body.page_count, 3);
    const past = await list(tenant, '?page=4&page_size=2');
    assert.deepEqual([past.body.entries, past.body.total_count], [[], 5]);
    const desc = await list(tenant, '?sort=name:desc&page_size=1');
    assert.equal(desc.body.entries[0].name, 'echo');
    const byCreation = await list(tenant, '?sort=created_at:asc');
    assert.equal(byCreation.body.entries[0].name, 'delta');
    const q = await list(tenant, '?q=HAR');
    assert.deepEqual(
      q.body.entries.map((c: { name: string }) => c.name),
      ['charlie'],
    );
    assert.equal((await list(tenant, '?q=%25')).body.total_count, 0, 'q is literal');
    for (const query of ['?sort=id', '?sort=name:up', '?page=0', '?page_size=1001', '?page_size=0']) {
      assert.equal((await list(tenant, query)).status, 400, query);
    }
  });

  test("another account's or tenant's cluster is 404", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const theirs = await create(other, 'theirs');
    const secondAccount = await tenant.addAccount();
    const mine = await create(tenant, 'mine', tenant.adminToken, secondAccount);
    for (const url of [
      `/accounts/${tenant.accountId}/clusters/${theirs.body.id}`,
      `/accounts/${tenant.accountId}/clusters/${mine.body.id}`,
      `/accounts/${tenant.accountId}/clusters/not-a-uuid`,
    ]) {
      const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], url);
    }
    assert.equal((await list(tenant)).body.total_count, 0);
  });
});
