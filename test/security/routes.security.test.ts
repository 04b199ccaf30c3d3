import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROLES } from '../../src/http/actor.js';
import { findingGroupFixture } from '../../src/modules/findings/testing.js';
import { tenantSettingsFixture } from '../../src/modules/integrations/testing.js';
import { hashToken } from '../../src/security/secrets.js';
import { rbacFixture } from '../identities/support.js';
import { clusterFixture } from '../ingest/security-fixture.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { fillPath, ROUTES, type RouteCase, type SecurityFixture } from './route-table.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** Routes that need no session token. */
const PUBLIC_PATHS = new Set([
  '/authentication/authenticate',
  '/console/session',
  '/healthz',
  '/readyz',
  '/metrics',
]);

test('every authenticated route of /openapi.json is in the security route table', async () => {
  const document = (await t.request({ method: 'GET', url: '/openapi.json' })).body;
  const documented = Object.entries(document.paths as Record<string, object>).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter(() => !PUBLIC_PATHS.has(path))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
  const covered = new Set(ROUTES.map((route) => `${route.method} ${route.path}`));
  assert.deepEqual(
    documented.filter((route) => !covered.has(route)),
    [],
    'add these routes to test/security/route-table.ts',
  );
});

async function call(route: RouteCase, fixture: SecurityFixture, headers: Record<string, string>) {
  return t.request({
    method: route.method,
    url: fillPath(route.path, fixture),
    headers,
    ...(route.body ? { body: route.body(fixture) } : {}),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('common security cases, for every route', () => {
  let tenant: TestTenant;
  let other: TestTenant;
  let fixture: SecurityFixture;

  before(async () => {
    tenant = await createTenant(t);
    other = await createTenant(t);
    const key = await t.tenancy.createAccessKey({
      tenantId: tenant.tenantId,
      userId: tenant.admin.userId,
      name: 'target',
      scope: 'account',
      accountId: tenant.accountId,
    });
    const cluster = await clusterFixture(t, tenant);
    fixture = {
      accountId: tenant.accountId,
      userId: tenant.admin.userId,
      accessKeyId: key.access_key_id,
      ...cluster,
      ...(await rbacFixture(t, tenant, cluster.clusterId)),
      ...(await tenantSettingsFixture(t, tenant)),
      ...(await findingGroupFixture(t, tenant)),
    };
  });

  for (const route of ROUTES) {
    const name = `${route.method} ${route.path}`;

    test(`${name}: no token, malformed header, unknown token -> 401 unauthenticated`, async () => {
      for (const headers of [{}, { authorization: 'Basic abc' }, bearer('pst_not-a-real-token')]) {
        const res = await call(route, fixture, headers);
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.body.code, 'unauthenticated');
      }
    });

    test(`${name}: expired token -> 401 token_expired`, async () => {
      const user = await tenant.addUser([{ level: 'tenant', role: 'admin' }]);
      await t.db.query(`update sessions set expires_at = now() - interval '1 minute' where token_hash = $1`, [
        hashToken(user.token),
      ]);
      const res = await call(route, fixture, bearer(user.token));
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'token_expired');
    });

    test(`${name}: token of a revoked key -> 401 unauthenticated`, async () => {
      const user = await tenant.addUser([{ level: 'tenant', role: 'admin' }]);
      await t.tenancy.revokeAccessKey({ tenantId: tenant.tenantId, accessKeyId: user.accessKeyId });
      const res = await call(route, fixture, bearer(user.token));
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'unauthenticated');
    });

    test(`${name}: another tenant's admin -> ${route.accountScoped ? 'not_found' : (route.otherTenant ?? 'not_found')}`, async () => {
      const res = await call(route, fixture, bearer(other.adminToken));
      if (route.accountScoped || route.otherTenant === 'not_found') {
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'not_found');
      } else if (route.otherTenant === 'forbidden') {
        assert.equal(res.status, 403, res.text);
        assert.equal(res.body.code, 'forbidden');
      } else if (route.otherTenant === 'unknown_reference') {
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.validation_details[0].code, 'invalid_value');
      } else if (route.otherTenant === 'own_view') {
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.tenant_id, other.tenantId);
        assert.ok(!JSON.stringify(res.body).includes(tenant.accountId), 'nothing of the other tenant');
      } else {
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.total_count, res.body.entries.length);
        const text = JSON.stringify(res.body);
        assert.ok(
          !text.includes(tenant.tenantId) && !text.includes(tenant.accountId),
          'no data of the other tenant',
        );
      }
    });

    if (route.accountScoped) {
      test(`${name}: account key of another account of the same tenant -> 404`, async () => {
        const otherAccount = await tenant.addAccount();
        const user = await tenant.addUser([{ level: 'tenant', role: 'admin' }], {
          keyAccountId: otherAccount,
        });
        const res = await call(route, fixture, bearer(user.token));
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'not_found');
      });
    }

    const lower = ROLES[ROLES.indexOf(route.role) - 1];
    if (lower) {
      test(`${name}: ${lower} (below ${route.role}) -> 403 forbidden`, async () => {
        const user = await tenant.addUser([{ level: 'tenant', role: lower }]);
        const res = await call(route, fixture, bearer(user.token));
        assert.equal(res.status, 403, res.text);
        assert.equal(res.body.code, 'forbidden');
      });
    }
  }
});
