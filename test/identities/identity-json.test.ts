/**
 * #14 and #16 answer from each identity's cached API text (migration 0016, identity-json.ts).
 * The same requests are answered again after the cached text is cleared, which is the path of
 * rows written before 0016 (the stored jsonb mapped and serialized through the response schema,
 * as every identity was before): both bodies must be the same bytes. Every response of
 * t.request is also validated against /openapi.json, the routes' response schemas.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeJson } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  clusterRole,
  deleted,
  identityNamed,
  pushObjects,
  pushSampleWithRbac,
  pushWatchEvents,
  role,
  roleBinding,
  runningPod,
  serviceAccount,
} from './support.js';

let t: TestApp;
let tenant: TestTenant;
let cluster: { id: string; name: string };
let leaving: { account: KubeJson; binding: KubeJson };

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  cluster = await pushSampleWithRbac(t, tenant, 'prod');
  // an identity that leaves the cluster: its removal moves updated_at, hence rbac_objects.created_at
  leaving = {
    account: serviceAccount('payments', 'leaving'),
    binding: roleBinding('payments', 'leaving-reads', { kind: 'Role', name: 'leaving-reader' }, [
      { kind: 'ServiceAccount', name: 'leaving', namespace: 'payments' },
    ]),
  };
  await pushObjects(t, tenant, cluster.id, [
    leaving.account,
    leaving.binding,
    role('payments', 'leaving-reader', [{ resources: ['secrets'], verbs: ['get', 'list'] }]),
    clusterRole('json-wide', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
  ]);
  await pushWatchEvents(t, tenant, cluster.id, [deleted(leaving.binding), deleted(leaving.account)]);
});
after(() => t.close());

const account = () => `/accounts/${tenant.accountId}`;

async function getText(url: string): Promise<string> {
  const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return res.text;
}

async function uncachedCount(): Promise<number> {
  const { rows } = await t.db.query<{ n: number | string }>(
    `select count(*) as n from identities
      where account_id = $1 and (assigned_roles_json is null or access_json is null)`,
    [tenant.accountId],
  );
  return Number(rows[0]!.n);
}

/** Clears the cached text of the account's identities (all, or those with these ids). */
async function clearCache(ids?: string[]) {
  await t.db.query(
    `update identities set assigned_roles_json = null, access_json = null
      where account_id = $1 ${ids ? 'and id = any($2::uuid[])' : ''}`,
    ids ? [tenant.accountId, ids] : [tenant.accountId],
  );
}

/** The same JSON, and the same bytes: key order included (free-form objects in jsonb's order). */
function assertSameJson(cached: string, uncached: string) {
  assert.deepEqual(JSON.parse(cached), JSON.parse(uncached));
  assert.equal(cached, uncached);
}

const URLS = {
  'page 1 (default sort)': () => `${account()}/identities`,
  'a filtered, sorted second page': () =>
    `${account()}/identities?identity_types=k8s_service_account&sort=name:asc&page=2&page_size=5`,
  'risky identities': () => `${account()}/identities?risk_levels=critical,high&statuses=open`,
  'resolved identities': () => `${account()}/identities?statuses=resolved`,
};

describe('identities from their cached API text', () => {
  test('every identity written by the recompute has its text', async () => {
    assert.equal(await uncachedCount(), 0);
    const page = JSON.parse(await getText(`${account()}/identities?page_size=200`));
    assert.ok(page.entries.length >= 10, `a realistic set: ${page.entries.length} identities`);
    assert.ok(page.entries.some((identity: KubeJson) => identity.risks.length > 0));
    assert.ok(page.entries.some((identity: KubeJson) => identity.raw_rbac_objects.roles.length > 0));
  });

  test('pages and details hold the same JSON as the serialized stored identity', async (ctx) => {
    const leaver = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'leaving');
    assert.equal(leaver.status, 'resolved');
    assert.equal(leaver.resolved_reason, 'identity_deleted');
    assert.equal(leaver.rbac_objects.created_at, leaver.updated_at);
    const ledger = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'ledger');
    const urls = {
      ...Object.fromEntries(Object.entries(URLS).map(([name, url]) => [name, url()])),
      'a detail': `${account()}/identities/${ledger.id}`,
      'the detail of a removed identity': `${account()}/identities/${leaver.id}`,
    };
    const cached = new Map<string, string>();
    for (const [name, url] of Object.entries(urls)) cached.set(name, await getText(url));
    assert.ok(JSON.parse(cached.get('resolved identities')!).total_count > 0);

    await clearCache();
    for (const [name, url] of Object.entries(urls)) {
      await ctx.test(name, async () => assertSameJson(cached.get(name)!, await getText(url)));
    }
  });

  test('a page mixing cached and uncached identities', async () => {
    const url = URLS['page 1 (default sort)']();
    await pushObjects(t, tenant, cluster.id, [serviceAccount('payments', 'refill')]); // visits it alone
    await t.db.query('delete from identity_source_state where account_id = $1', [tenant.accountId]);
    await pushObjects(t, tenant, cluster.id, [serviceAccount('payments', 'refill-all')]); // whole cluster
    const page = await getText(url);
    const ids = JSON.parse(page).entries.map((identity: KubeJson) => identity.id as string);
    await clearCache(ids.filter((_: string, index: number) => index % 2 === 0));
    assertSameJson(page, await getText(url));
  });

  test('the next recompute that sees an identity fills its text', async () => {
    const url = URLS['page 1 (default sort)']();
    await clearCache();
    // a push that reaches one identity: a touch (last_used_at) and its text, nothing else
    await pushObjects(t, tenant, cluster.id, [runningPod('payments', 'ledger-1', 'ledger')]);
    const ledger = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'ledger');
    const filled = await t.db.query<{ id: string }>(
      'select id from identities where account_id = $1 and access_json is not null',
      [tenant.accountId],
    );
    assert.deepEqual(
      filled.rows.map((row) => row.id),
      [ledger.id],
    );
    const mixed = await getText(url);
    await clearCache();
    assertSameJson(mixed, await getText(url));

    // a cluster without links is recomputed whole on its next push: every identity it computes
    // is filled; vanished identities are not computed and keep the old path
    await t.db.query('delete from identity_source_state where account_id = $1', [tenant.accountId]);
    await pushObjects(t, tenant, cluster.id, [serviceAccount('payments', 'newcomer')]);
    const left = await t.db.query<{ name: string; deleted: boolean }>(
      `select name, deleted_at is not null as deleted from identities
        where account_id = $1 and (assigned_roles_json is null or access_json is null)`,
      [tenant.accountId],
    );
    assert.ok(left.rows.length > 0);
    assert.ok(
      left.rows.every((row) => row.deleted),
      JSON.stringify(left.rows),
    );
    const full = await getText(`${url}?page_size=200`);
    await clearCache();
    assertSameJson(full, await getText(`${url}?page_size=200`));
  });
});
