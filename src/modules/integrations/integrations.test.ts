import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import {
  createTenant,
  startTestApp,
  TEST_PEPPER,
  type TestApp,
  type TestRequest,
  type TestTenant,
} from '../../../test/support/harness.js';
import { createSecretBox } from './secret-box.js';
import { sealContext } from './service.js';

const SECRET = 'whsec-never-shown-7f3a9c1e5b';
const OTHER_SECRET = 'whsec-second-value-2d8e4f6a0c';

let t: TestApp;
/** Every response body and every log line of this file: the secrets must appear in none of them. */
const seen: string[] = [];

before(async () => {
  t = await startTestApp({ LOG_LEVEL: 'trace' });
  const stream = (t.app.log as unknown as Record<symbol, { write(line: string): void }>)[
    pino.symbols.streamSym
  ];
  if (!stream) throw new Error('no log stream');
  stream.write = (line: string) => void seen.push(line);
});
after(() => t.close());

async function call(request: TestRequest) {
  const res = await t.request(request);
  seen.push(res.text, JSON.stringify(res.headers));
  return res;
}

const base = (tenant: TestTenant) => `/tenants/${tenant.tenantId}/integrations`;
const create = (tenant: TestTenant, body: unknown, token = tenant.adminToken) =>
  call({ method: 'POST', url: `${base(tenant)}/external`, token, body });
const webhook = (config: Record<string, unknown> = {}) => ({
  name: 'alerts',
  type: 'webhook',
  config: { url: 'https://93.184.216.34/hooks/posture', signing_secret: SECRET, ...config },
});

describe('integrations', () => {
  test('the provider catalogue: 22 types, three mock- variants, config schemas with secrets marked, paged', async () => {
    const tenant = await createTenant(t);
    const all = await call({
      method: 'GET',
      url: `${base(tenant)}/providers?limit=1000`,
      token: tenant.adminToken,
    });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.total_count, 22);
    assert.equal(all.body.current_offset, 0);
    assert.equal(all.body.has_more, false);
    const types = all.body.entries.map((p: { type: string }) => p.type);
    assert.equal(new Set(types).size, 22);
    assert.deepEqual(types.filter((type: string) => type.startsWith('mock-')).sort(), [
      'mock-siem',
      'mock-ticketing',
      'mock-webhook',
    ]);
    const hook = all.body.entries.find((p: { type: string }) => p.type === 'webhook');
    assert.deepEqual(
      hook.config.map((f: { key: string; secret: boolean; required: boolean }) => [
        f.key,
        f.secret,
        f.required,
      ]),
      [
        ['url', false, true],
        ['signing_secret', true, true],
        ['min_severity', false, false],
      ],
    );
    const categories = new Set(all.body.entries.flatMap((p: { categories: string[] }) => p.categories));
    for (const kind of [
      'ticketing',
      'siem',
      'vulnerability_management',
      'endpoint_protection',
      'identity_provider',
      'collaboration',
    ]) {
      assert.ok(categories.has(kind), kind);
    }

    const page = await call({
      method: 'GET',
      url: `${base(tenant)}/providers?limit=5&offset=20`,
      token: tenant.adminToken,
    });
    assert.deepEqual(
      { n: page.body.entries.length, more: page.body.has_more, offset: page.body.current_offset },
      { n: 2, more: false, offset: 20 },
    );
    for (const query of ['limit=0', 'offset=-1', 'limit=abc', 'limit=1001']) {
      const bad = await call({
        method: 'GET',
        url: `${base(tenant)}/providers?${query}`,
        token: tenant.adminToken,
      });
      assert.equal(bad.status, 400, query);
    }

    assert.equal((await create(tenant, webhook())).status, 201);
    const after = await call({
      method: 'GET',
      url: `${base(tenant)}/providers?limit=1000`,
      token: tenant.adminToken,
    });
    const configured = after.body.entries.find((p: { type: string }) => p.type === 'webhook').configured;
    assert.equal(configured.length, 1);
    assert.equal(configured[0].config.signing_secret, '********');
  });

  test('create, read, list, update and delete; secrets redacted everywhere, sealed in the database', async () => {
    const tenant = await createTenant(t);
    const created = await create(tenant, webhook({ min_severity: 'high' }));
    assert.equal(created.status, 201, created.text);
    const id = created.body.id;
    assert.deepEqual(created.body, {
      id,
      name: 'alerts',
      type: 'webhook',
      config: {
        url: 'https://93.184.216.34/hooks/posture',
        signing_secret: '********',
        min_severity: 'high',
      },
    });
    const one = await call({
      method: 'GET',
      url: `${base(tenant)}/external/${id}`,
      token: tenant.adminToken,
    });
    assert.deepEqual(one.body, created.body);
    const list = await call({ method: 'GET', url: `${base(tenant)}/external`, token: tenant.adminToken });
    assert.deepEqual(list.body, {
      current_offset: 0,
      has_more: false,
      total_count: 1,
      entries: [created.body],
    });

    // Sending the marker back keeps the stored secret; the other values change.
    const kept = await call({
      method: 'PUT',
      url: `${base(tenant)}/external/${id}`,
      token: tenant.adminToken,
      body: { name: 'renamed', config: { url: 'https://93.184.216.35/hook', signing_secret: '********' } },
    });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.config, { url: 'https://93.184.216.35/hook', signing_secret: '********' });
    const stored = async () => {
      const { rows } = await t.db.query<{ config: object; sealed_secrets: Buffer; secret_keys: string[] }>(
        'select config, sealed_secrets, secret_keys from integrations where tenant_id = $1 and id = $2',
        [tenant.tenantId, id],
      );
      const row = rows[0]!;
      const raw = JSON.stringify(row.config) + row.sealed_secrets.toString('latin1');
      assert.ok(!raw.includes(SECRET) && !raw.includes(OTHER_SECRET), 'no secret in clear in the database');
      assert.deepEqual(row.secret_keys, ['signing_secret']);
      return createSecretBox(TEST_PEPPER).open(row.sealed_secrets, sealContext(tenant.tenantId, id));
    };
    assert.deepEqual(await stored(), { signing_secret: SECRET });

    const replaced = await call({
      method: 'PUT',
      url: `${base(tenant)}/external/${id}`,
      token: tenant.adminToken,
      body: {
        name: 'renamed',
        type: 'webhook',
        config: { url: 'https://93.184.216.35/hook', signing_secret: OTHER_SECRET },
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(await stored(), { signing_secret: OTHER_SECRET });

    const retype = await call({
      method: 'PUT',
      url: `${base(tenant)}/external/${id}`,
      token: tenant.adminToken,
      body: { name: 'renamed', type: 'jira', config: {} },
    });
    assert.equal(retype.status, 400);
    assert.equal(retype.body.validation_details[0].field, 'type');

    const removed = await call({
      method: 'DELETE',
      url: `${base(tenant)}/external/${id}`,
      token: tenant.adminToken,
    });
    assert.equal(removed.status, 204);
    for (const method of ['GET', 'DELETE'] as const) {
      const gone = await call({ method, url: `${base(tenant)}/external/${id}`, token: tenant.adminToken });
      assert.equal(gone.status, 404, method);
    }

    const text = seen.join('\n');
    assert.ok(seen.length > 10 && text.includes('"level"'), 'logs were captured');
    assert.ok(
      !text.includes(SECRET) && !text.includes(OTHER_SECRET),
      'no secret in any response or log line',
    );
  });

  test('config is validated against the provider schema; every bad key is named and nothing is stored', async () => {
    const tenant = await createTenant(t);
    const bad = await create(tenant, {
      name: 'bad',
      type: 'webhook',
      config: { url: 'ftp://example.com/x', min_severity: 'urgent', extra: 1 },
    });
    assert.equal(bad.status, 400);
    const details = Object.fromEntries(
      bad.body.validation_details.map((d: { field: string; code: string }) => [d.field, d.code]),
    );
    assert.deepEqual(details, {
      'config.extra': 'unknown_field',
      'config.url': 'invalid_format',
      'config.signing_secret': 'required',
      'config.min_severity': 'invalid_value',
    });

    const cases: [Record<string, unknown>, string, string][] = [
      [{ min_severity: 3 }, 'config.min_severity', 'invalid_type'],
      [{ signing_secret: 1234 }, 'config.signing_secret', 'invalid_type'],
      [{ signing_secret: 'short' }, 'config.signing_secret', 'out_of_range'],
      [{ signing_secret: '********' }, 'config.signing_secret', 'required'], // no stored value to keep
      [{ url: 'http://169.254.169.254/latest/meta-data/' }, 'config.url', 'invalid_value'],
      [{ url: 'http://127.0.0.1:9999/hook' }, 'config.url', 'invalid_value'],
      [{ url: 'http://10.0.0.8/hook' }, 'config.url', 'invalid_value'],
      [{ url: 'http://[fe80::1]/hook' }, 'config.url', 'invalid_value'],
      [{ url: 'http://0.0.0.0/hook' }, 'config.url', 'invalid_value'],
      [{ url: 'http://metadata.google.internal/' }, 'config.url', 'invalid_value'],
      [{ url: 'https://user:pw@93.184.216.34/' }, 'config.url', 'invalid_format'],
    ];
    for (const [config, field, code] of cases) {
      const res = await create(tenant, webhook(config));
      assert.equal(res.status, 400, JSON.stringify(config));
      assert.deepEqual(
        res.body.validation_details.map((d: { field: string; code: string }) => [d.field, d.code]),
        [[field, code]],
        JSON.stringify(config),
      );
    }
    const unknownType = await create(tenant, { name: 'x', type: 'carrier-pigeon', config: {} });
    assert.equal(unknownType.status, 400);
    assert.equal(unknownType.body.validation_details[0].field, 'type');
    const unknownBody = await create(tenant, { ...webhook(), owner: 'me' });
    assert.equal(unknownBody.status, 400);
    const jira = await create(tenant, {
      name: 'tickets',
      type: 'jira',
      config: { url: 'https://93.184.216.34' },
    });
    assert.deepEqual(jira.body.validation_details.map((d: { field: string }) => d.field).sort(), [
      'config.api_token',
      'config.email',
      'config.project_key',
    ]);

    const list = await call({ method: 'GET', url: `${base(tenant)}/external`, token: tenant.adminToken });
    assert.equal(list.body.total_count, 0, 'nothing stored');
    assert.equal((await create(tenant, webhook())).status, 201);
    const duplicate = await create(tenant, webhook());
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.code, 'conflict');
  });

  test('tenant scope: another tenant sees 404; account-scoped keys and account-level roles get 403', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const id = (await create(tenant, webhook())).body.id;
    // Another tenant's integration id under one's own tenant path, and another tenant's path.
    for (const url of [`${base(other)}/external/${id}`, `${base(tenant)}/external/${id}`]) {
      const res = await call({ method: 'GET', url, token: other.adminToken });
      assert.equal(res.status, 404, url);
    }
    const put = await call({
      method: 'PUT',
      url: `${base(other)}/external/${id}`,
      token: other.adminToken,
      body: { name: 'stolen', config: { url: 'https://93.184.216.34/', signing_secret: '********' } },
    });
    assert.equal(put.status, 404);
    assert.equal(
      (await call({ method: 'DELETE', url: `${base(other)}/external/${id}`, token: other.adminToken }))
        .status,
      404,
    );

    const accountKey = await tenant.addUser([{ level: 'tenant', role: 'admin' }], {
      keyAccountId: tenant.accountId,
    });
    const accountAdmin = await tenant.addUser([{ level: 'account', role: 'admin' }]);
    for (const user of [accountKey, accountAdmin]) {
      const res = await call({ method: 'GET', url: `${base(tenant)}/external/${id}`, token: user.token });
      assert.equal(res.status, 403);
    }
    const viewer = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    assert.equal(
      (await call({ method: 'GET', url: `${base(tenant)}/external/${id}`, token: viewer.token })).status,
      200,
    );
    assert.equal((await create(tenant, { ...webhook(), name: 'v' }, viewer.token)).status, 403);
    const name = (
      await call({ method: 'GET', url: `${base(tenant)}/external/${id}`, token: tenant.adminToken })
    ).body.name;
    assert.equal(name, 'alerts', 'unchanged');
  });
});
