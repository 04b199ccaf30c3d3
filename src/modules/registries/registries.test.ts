import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const create = (tenant: TestTenant, body: unknown, token = tenant.adminToken) =>
  t.request({ method: 'POST', url: `/accounts/${tenant.accountId}/registries`, token, body });

const CLOUD_A = {
  type: 'cloudA',
  repository_name: 'payments/api',
  cloudA_account_id: '123456789012',
  cloudA_region: 'eu-west-1',
};
const CLOUD_B = {
  type: 'cloudB',
  repository_name: 'images',
  cloudB_project_id: 'acme-prod-123456',
  cloudB_location: 'europe-west1',
  cloudB_project_number: '998877665544',
};
const GENERIC = { type: 'generic', repository_name: 'registry.internal.example:5000/tools' };

describe('registries', () => {
  test('each type is created with its fields; the others are null', async () => {
    const tenant = await createTenant(t);
    const a = await create(tenant, CLOUD_A);
    assert.equal(a.status, 201, a.text);
    assert.deepEqual(
      { ...a.body, id: undefined, created_at: undefined, updated_at: undefined },
      {
        ...CLOUD_A,
        id: undefined,
        account_id: tenant.accountId,
        cloudB_location: null,
        cloudB_project_id: null,
        cloudB_project_number: null,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    const b = await create(tenant, CLOUD_B);
    assert.equal(b.status, 201, b.text);
    assert.equal(b.body.cloudB_project_number, '998877665544');
    assert.equal(b.body.cloudA_account_id, null);
    // Clients generated from the description send every field: empty strings count as absent.
    const g = await create(tenant, {
      ...GENERIC,
      cloudA_account_id: '',
      cloudA_region: '',
      cloudB_location: '',
    });
    assert.equal(g.status, 201, g.text);
    assert.equal(g.body.cloudA_region, null);

    const listed = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/registries`,
      token: tenant.adminToken,
    });
    assert.ok(Array.isArray(listed.body));
    assert.deepEqual(listed.body, [a.body, b.body, g.body], 'a bare array, oldest first');
    const got = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/registries/${b.body.id}`,
      token: tenant.adminToken,
    });
    assert.deepEqual(got.body, b.body);
    const again = await create(tenant, CLOUD_A);
    assert.deepEqual([again.status, again.body.code], [409, 'conflict']);
  });

  test('required fields per type, fields of other types and bad formats: one detail per field', async () => {
    const tenant = await createTenant(t);
    const cases: [unknown, [string, string][]][] = [
      [
        { type: 'cloudA' },
        [
          ['repository_name', 'required'],
          ['cloudA_account_id', 'required'],
          ['cloudA_region', 'required'],
        ],
      ],
      [
        { type: 'cloudB', repository_name: 'x' },
        [
          ['cloudB_location', 'required'],
          ['cloudB_project_id', 'required'],
        ],
      ],
      [{ type: 'generic' }, [['repository_name', 'required']]],
      [{ ...CLOUD_A, cloudB_location: 'us' }, [['cloudB_location', 'invalid_value']]],
      [{ ...GENERIC, cloudA_region: 'eu-west-1' }, [['cloudA_region', 'invalid_value']]],
      [
        { ...CLOUD_A, cloudA_account_id: '1234', cloudA_region: 'Europe' },
        [
          ['cloudA_account_id', 'invalid_format'],
          ['cloudA_region', 'invalid_format'],
        ],
      ],
      [{ ...CLOUD_B, cloudB_project_number: 'twelve' }, [['cloudB_project_number', 'invalid_format']]],
      [
        { ...GENERIC, repository_name: 'https://registry.example.com' },
        [['repository_name', 'invalid_format']],
      ],
      [{ ...GENERIC, type: 'cloudC' }, [['type', 'invalid_value']]],
      [{ ...GENERIC, region: 'x' }, [['region', 'unknown_field']]],
      [{ ...GENERIC, repository_name: 5 }, [['repository_name', 'invalid_type']]],
    ];
    for (const [body, expected] of cases) {
      const res = await create(tenant, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(
        res.body.validation_details.map((d: { field: string; code: string }) => [d.field, d.code]),
        expected,
        JSON.stringify(body),
      );
    }
    const listed = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/registries`,
      token: tenant.adminToken,
    });
    assert.deepEqual(listed.body, []);
  });

  test('editors create, viewers read; other accounts and tenants see nothing', async () => {
    const tenant = await createTenant(t);
    const editor = await tenant.addUser([{ level: 'account', role: 'editor' }]);
    const created = await create(tenant, GENERIC, editor.token);
    assert.equal(created.status, 201);
    const viewer = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    assert.equal((await create(tenant, CLOUD_A, viewer.token)).status, 403);
    const read = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/registries`,
      token: viewer.token,
    });
    assert.equal(read.body.length, 1);

    const other = await createTenant(t);
    const secondAccount = await tenant.addAccount();
    for (const [url, token] of [
      [`/accounts/${other.accountId}/registries/${created.body.id}`, other.adminToken],
      [`/accounts/${secondAccount}/registries/${created.body.id}`, tenant.adminToken],
      [`/accounts/${tenant.accountId}/registries/not-a-uuid`, tenant.adminToken],
      [`/accounts/${tenant.accountId}/registries/7b0a5c3e-0000-4000-8000-000000000000`, tenant.adminToken],
    ]) {
      const res = await t.request({ method: 'GET', url: url as string, token: token as string });
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], url);
    }
  });
});
