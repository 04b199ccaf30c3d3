/**
 * GET/PUT /accounts/{account_id}/runtime_settings: defaults, validation (nothing changed by a bad
 * request), roles, and the trusted prefixes as ingestion applies them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import { connect, exec, getJson, pushOk, putSettings, WEB } from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const url = (accountId: string) => `/accounts/${accountId}/runtime_settings`;

describe('runtime settings', () => {
  test('the defaults apply until an admin saves settings', async () => {
    const tenant = await createTenant(t);
    assert.deepEqual(await getJson(t, tenant.adminToken, url(tenant.accountId)), {
      account_id: tenant.accountId,
      learning_window_seconds: 3600,
      learning_window_max_events: null,
      trusted_ip_prefixes: [],
      updated_at: null,
    });
  });

  test('PUT replaces the settings; a viewer reads them', async () => {
    const tenant = await createTenant(t);
    const saved = await putSettings(
      t,
      { token: tenant.adminToken, accountId: tenant.accountId },
      {
        learning_window_seconds: 900,
        learning_window_max_events: 5000,
        trusted_ip_prefixes: [
          { cidr: ' 10.0.0.0/8 ', name: 'cluster', description: 'pods and services' },
          { cidr: 'fd00::/8', name: 'ula' },
        ],
      },
    );
    assert.deepEqual(saved.trusted_ip_prefixes, [
      { cidr: '10.0.0.0/8', name: 'cluster', description: 'pods and services' },
      { cidr: 'fd00::/8', name: 'ula' },
    ]);
    assert.ok(saved.updated_at);
    const viewer = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    assert.deepEqual(await getJson(t, viewer.token, url(tenant.accountId)), saved);
  });

  test('a bad request is 400 naming the field and changes nothing', async () => {
    const tenant = await createTenant(t);
    const target = { token: tenant.adminToken, accountId: tenant.accountId };
    const saved = await putSettings(t, target, { learning_window_seconds: 120 });
    const good = { learning_window_seconds: 60, learning_window_max_events: null, trusted_ip_prefixes: [] };
    const cases: [unknown, string][] = [
      [
        {
          ...good,
          trusted_ip_prefixes: [
            { cidr: '10.0.0.0/8', name: 'a' },
            { cidr: '10.0.0.0/33', name: 'b' },
          ],
        },
        'trusted_ip_prefixes[1].cidr',
      ],
      [{ ...good, trusted_ip_prefixes: [{ cidr: 'example.com', name: 'a' }] }, 'trusted_ip_prefixes[0].cidr'],
      [
        {
          ...good,
          trusted_ip_prefixes: [
            { cidr: '10.0.0.0/8', name: 'a' },
            { cidr: '10.0.0.0/8', name: 'b' },
          ],
        },
        'trusted_ip_prefixes[1].cidr',
      ],
      [{ ...good, learning_window_seconds: 0 }, 'learning_window_seconds'],
      [{ ...good, learning_window_max_events: 0 }, 'learning_window_max_events'],
      [{ ...good, learning_window_seconds: undefined }, 'learning_window_seconds'],
      [{ ...good, baseline: 'x' }, 'baseline'],
      [{ ...good, trusted_ip_prefixes: [{ cidr: '10.0.0.0/8' }] }, 'trusted_ip_prefixes[0].name'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request({
        method: 'PUT',
        url: url(tenant.accountId),
        token: tenant.adminToken,
        body,
      });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(
        res.body.validation_details.some((d: { field: string }) => d.field === field),
        `${field}: ${res.text}`,
      );
    }
    assert.deepEqual(await getJson(t, tenant.adminToken, url(tenant.accountId)), saved);
  });

  test('an editor may not change them', async () => {
    const tenant = await createTenant(t);
    const editor = await tenant.addUser([{ level: 'account', role: 'editor' }]);
    const res = await t.request({
      method: 'PUT',
      url: url(tenant.accountId),
      token: editor.token,
      body: { learning_window_seconds: 60, learning_window_max_events: null, trusted_ip_prefixes: [] },
    });
    assert.equal(res.status, 403);
    assert.equal((await getJson(t, tenant.adminToken, url(tenant.accountId))).updated_at, null);
  });

  test('a new connection into a trusted prefix is marked with it and is not untrusted egress', async () => {
    const tenant = await createTenant(t);
    const target = {
      token: tenant.adminToken,
      accountId: tenant.accountId,
      clusterId: (await createCluster(t, tenant.adminToken, tenant.accountId, 'trust')).id,
    };
    await putSettings(t, target, {
      learning_window_seconds: 60,
      trusted_ip_prefixes: [{ cidr: '198.51.100.0/28', name: 'payments-gateway' }],
    });
    await pushOk(t, target, [
      exec(WEB, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      connect(WEB, 100, 1, 'server', '198.51.100.5', 443),
    ]);
    const [insight] = (
      await getJson(t, target.token, `/accounts/${target.accountId}/container_runtime_insights`)
    ).entries;
    assert.equal(insight.severity, 'negligible');
    const detail = await getJson(
      t,
      target.token,
      `/accounts/${target.accountId}/container_runtime_insights/${insight.id}`,
    );
    const server = detail.ongoing.containers[0].processes[0];
    assert.deepEqual(
      server.connections.map((c: { trustedCIDR: string; drift: boolean }) => [c.trustedCIDR, c.drift]),
      [['198.51.100.0/28', true]],
    );
    assert.deepEqual(server.trustedIPPrefixes, [
      { cidr: '198.51.100.0/28', name: 'payments-gateway', port: 443 },
    ]);

    await putSettings(t, target, { learning_window_seconds: 60, trusted_ip_prefixes: [] });
    await pushOk(t, target, [connect(WEB, 200, 1, 'server', '198.51.100.6', 443)]);
    const after = (await getJson(t, target.token, `/accounts/${target.accountId}/container_runtime_insights`))
      .entries[0];
    assert.equal(after.severity, 'high', 'the same kind of connection, no longer trusted');
  });
});
