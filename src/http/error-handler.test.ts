/**
 * Error answers on what the fuzz suite found. A NUL character (U+0000) in a query parameter, a
 * body field or an ingested scan reached PostgreSQL, which cannot store it (SQLSTATE 22021 in
 * text, 22P05 in jsonb), and the client got a 500: it is a 400 `bad_request`, and nothing is
 * stored. And a body sent to a route that takes none (a DELETE, a revoke) was answered 413 or 415
 * although the document did not list them for that route (the harness checks every status).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../test/support/harness.js';

describe('a NUL character in client input', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let account: string;
  before(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
    account = `/accounts/${tenant.accountId}`;
  });
  after(() => t.close());

  const expectBadRequest = (res: { status: number; text: string; body: { code?: string } }) => {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'bad_request');
  };

  test('in a search or a filter is 400, not 500', async () => {
    for (const url of [
      `${account}/inventory_containers?q=a%00b`,
      `${account}/inventory_containers?filters=name:%00`,
      `${account}/inventory_packages?q=%00`,
      `${account}/reports/inventory_cves?filters=cve_name:%00`,
    ]) {
      expectBadRequest(await t.request({ method: 'GET', url, token: tenant.adminToken }));
    }
  });

  test('in a body field is 400 and stores nothing', async () => {
    const keys = () => t.request({ method: 'GET', url: '/accounts/access_keys', token: tenant.adminToken });
    const before = (await keys()).body.total_count;
    expectBadRequest(
      await t.request({
        method: 'POST',
        url: '/accounts/access_keys',
        token: tenant.adminToken,
        body: { name: 'a\u0000b', scope: 'tenant' },
      }),
    );
    assert.equal((await keys()).body.total_count, before);
    expectBadRequest(
      await t.request({
        method: 'POST',
        url: '/authentication/authenticate',
        body: { access_key_id: 'pak_\u0000', secret_key: tenant.admin.secretKey },
      }),
    );
  });

  test('in an ingested scan is 400 and stores nothing', async () => {
    const cluster = await t.request({
      method: 'POST',
      url: `${account}/clusters`,
      token: tenant.adminToken,
      body: { name: 'nul-probe' },
    });
    const scan = {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      metadata: { component: { type: 'container', name: 'app:1', version: `sha256:${'b'.repeat(64)}` } },
      components: [{ 'bom-ref': 'c', type: 'library', name: 'lib\u0000c', version: '1' }],
      vulnerabilities: [{ id: 'CVE-2024-0001', ratings: [{ severity: 'high' }], affects: [{ ref: 'c' }] }],
    };
    const res = await t.request({
      method: 'POST',
      url: `${account}/clusters/${cluster.body.id}/ingest/vulnerabilities`,
      token: tenant.adminToken,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(scan),
    });
    expectBadRequest(res);
    const stored = await t.request({
      method: 'GET',
      url: `${account}/inventory_packages`,
      token: tenant.adminToken,
    });
    assert.equal(stored.body.total_count, 0);
  });

  test('a body too large or of a type nobody parses, on a route without a body, is a documented 413 / 415', async () => {
    const tenantPath = `/tenants/${tenant.tenantId}`;
    const tooLarge = Buffer.from(`{"name":"${'a'.repeat(1024 * 1024)}"}`);
    const sent = [
      ['DELETE', `${tenantPath}/knowledge_base/collections/none`, 'application/json', tooLarge, 413],
      ['DELETE', `${tenantPath}/integrations/external/none`, ';;;', '{}', 415],
      ['PUT', '/accounts/access_keys/none/revoke', 'image/png', '{}', 415],
    ] as const;
    for (const [method, url, type, payload, status] of sent) {
      const res = await t.request({
        method,
        url,
        token: tenant.adminToken,
        headers: { 'content-type': type },
        payload,
      });
      assert.equal(res.status, status, `${method} ${url}: ${res.text}`);
    }
    const login = await t.request({
      method: 'POST',
      url: '/authentication/authenticate',
      headers: { 'content-type': ';;;' },
      payload: '{}',
    });
    assert.equal(login.status, 415);
    const signOut = await t.request({
      method: 'DELETE',
      url: '/console/session',
      headers: { 'x-posture-console': '1', 'content-type': 'application/json' },
      payload: '{',
    });
    assert.equal(signOut.status, 400);
  });
});
