/**
 * #14 and #16 answer from each identity's cached API text (migration 0016, identity-json.ts) and
 * each risk's (migration 0025, risk-json.ts). The same requests are answered again after the
 * identities are stored as rows written before those migrations: the access as jsonb only (built
 * from the text, as the recompute no longer stores it: migration 0063), the risks without text.
 * Those are mapped and serialized through the response schema, as every identity was before, and
 * both bodies must be the same bytes. Every response of t.request is also validated
 * against /openapi.json, the routes' response schemas.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Executor, queryAll } from '../../src/db/database.js';
import type { Risk } from '../../src/engines/rbac/index.js';
import { toApiRisk } from '../../src/modules/identities/mapping.js';
import { findRisksOf, findRiskTextsOf, type RiskRow } from '../../src/modules/identities/repository.js';
import { risksJsonByIdentity } from '../../src/modules/identities/risk-json.js';
import { riskStatements } from '../../src/modules/identities/risk-store.js';
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
  storeAccessAsJsonbOnly,
} from './support.js';

/** The recompute's risk statements, run as it runs them: together, in order. */
const writeRisks = (db: Executor, ...args: Parameters<typeof riskStatements>) =>
  queryAll(db, riskStatements(...args));

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

/**
 * Stores the account's identities (all, or these) as rows from before their cached text: the
 * access as jsonb only, their risks without text.
 */
async function clearCache(ids?: string[]) {
  await storeAccessAsJsonbOnly(t, tenant.accountId, ids);
  await clearRiskTexts(ids);
}

/** Clears the cached text of the account's risks (all, or of these identities). */
async function clearRiskTexts(ids?: string[]) {
  await t.db.query(
    `update identity_risks set head_json = null
      where account_id = $1 ${ids ? 'and identity_id = any($2::uuid[])' : ''}`,
    ids ? [tenant.accountId, ids] : [tenant.accountId],
  );
}

async function uncachedRisks(): Promise<{ open: number; resolved: number }> {
  const { rows } = await t.db.query<{ open: number | string; resolved: number | string }>(
    `select count(*) filter (where deleted_at is null) as open, count(*) filter (where deleted_at is not null) as resolved
       from identity_risks where account_id = $1 and head_json is null`,
    [tenant.accountId],
  );
  return { open: Number(rows[0]!.open), resolved: Number(rows[0]!.resolved) };
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
  test('every identity and risk written by the recompute has its text, and no jsonb copy of its access', async () => {
    assert.equal(await uncachedCount(), 0);
    const { rows } = await t.db.query<{ n: number | string }>(
      'select count(*) as n from identities where account_id = $1 and rbac_objects is not null',
      [tenant.accountId],
    );
    assert.equal(Number(rows[0]!.n), 0);
    assert.deepEqual(await uncachedRisks(), { open: 0, resolved: 0 });
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

  test('identities whose risks are partly written before their text was cached', async () => {
    const url = `${URLS['page 1 (default sort)']()}?page_size=200`;
    await pushObjects(t, tenant, cluster.id, [serviceAccount('payments', 'refill-risks')]);
    await t.db.query('delete from identity_source_state where account_id = $1', [tenant.accountId]);
    await pushObjects(t, tenant, cluster.id, [serviceAccount('payments', 'refill-risks-all')]);
    assert.deepEqual((await uncachedRisks()).open, 0);
    const page = await getText(url);
    // every other risk of each identity loses its text; the identities keep theirs
    await t.db.query(
      `update identity_risks r set head_json = null from (
         select identity_id, id, row_number() over (partition by identity_id order by id) as n
           from identity_risks where account_id = $1) o
        where r.account_id = $1 and r.identity_id = o.identity_id and r.id = o.id and o.n % 2 = 1`,
      [tenant.accountId],
    );
    const mixed = await uncachedRisks();
    assert.ok(
      mixed.open > 0 && mixed.open < JSON.parse(page).entries.flatMap((i: KubeJson) => i.risks).length,
    );
    assertSameJson(page, await getText(url));
    await clearRiskTexts();
    assertSameJson(page, await getText(url));
  });

  test('the next recompute that sees an identity fills its text', async () => {
    const url = URLS['page 1 (default sort)']();
    await clearCache();
    // a push that reaches one identity: a touch (last_used_at) and its text, nothing else
    await pushObjects(t, tenant, cluster.id, [runningPod('payments', 'ledger-1', 'ledger')]);
    const ledger = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'ledger');
    const filled = await t.db.query<{ id: string; jsonb: boolean }>(
      `select id, rbac_objects is not null as jsonb from identities
        where account_id = $1 and access_json is not null`,
      [tenant.accountId],
    );
    // filled, and the jsonb it was read through until now is gone
    assert.deepEqual(filled.rows, [{ id: ledger.id, jsonb: false }]);
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

  test('the next recompute that sees an open risk writes its text; resolved risks keep theirs missing', async () => {
    const url = `${URLS['page 1 (default sort)']()}?page_size=200`;
    await clearRiskTexts();
    const cleared = await uncachedRisks();
    assert.ok(cleared.open > 0 && cleared.resolved > 0, JSON.stringify(cleared));
    await t.db.query('delete from identity_source_state where account_id = $1', [tenant.accountId]);
    await pushObjects(t, tenant, cluster.id, [serviceAccount('payments', 'risk-refill')]);
    assert.deepEqual(await uncachedRisks(), { open: 0, resolved: cleared.resolved });
    const filled = await getText(url);
    await clearCache();
    assertSameJson(filled, await getText(url));
  });
});

describe("risks' API text written with the risk", () => {
  /** The risks as a page assembles them (stored text and times), by identity. */
  async function riskTexts(identityIds: string[]) {
    const rows = await findRiskTextsOf(t.db, tenant.accountId, identityIds);
    const older = new Map<string, RiskRow>();
    for (const risk of await findRisksOf(t.db, tenant.accountId, identityIds))
      older.set(`${risk.identity_id}/${risk.id}`, risk);
    const cached = new Set(rows.filter((row) => row.head_json !== null).map((row) => row.id));
    return { texts: risksJsonByIdentity(rows, older), cached };
  }

  // What JSON.stringify, PostgreSQL and pg each write their own way: escapes, non-ASCII and astral
  // text, U+2028, a lone surrogate (pg sends it as U+FFFD), doubles in exponent form, negative
  // zero, instants with microseconds, resolved risks, and empty or several associated resources.
  test('is what the stored risk rows serialize to, byte for byte', async () => {
    const ledger = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'ledger');
    const risk = (index: number, fields: Partial<Risk>): Risk => ({
      id: randomUUID(),
      identity_id: ledger.id,
      type: 'secrets_read',
      name: `edge ${index}`,
      description: 'plain',
      weight: 1,
      score: 1,
      severity: 'high',
      namespace: 'payments',
      associated_resources: [],
      fingerprint: `edge-${index}`,
      risk_counter: index,
      ...fields,
    });
    const risks = [
      risk(1, {
        name: 'quote " backslash \\ tab \t newline \n control \u0001 del \u007f é ✓ 𝄞 \u2028 \u2029 </script>',
        description: 'lone \ud800 surrogate, reversed pair \udc00\ud800',
        namespace: 'ünïcode',
        weight: 1e-7,
        score: 1e21,
        associated_resources: [
          { id: 'a"b', name: 'n\u0001\n\u2028', severity: 'high' },
          { id: 'c', name: 'ClusterRole/𝄞', severity: 'low' },
        ],
      }),
      risk(2, { weight: -0, score: 0.00012 }),
      risk(3, { weight: 123456789012345680000, score: 2.5e-5 }),
      risk(4, { weight: 0.1 + 0.2, score: Number.MAX_VALUE, severity: 'critical' }),
      risk(5, { weight: Number.MIN_VALUE, score: 5e-324 }),
    ];
    const scope = { accountId: tenant.accountId, clusterId: cluster.id };
    await writeRisks(
      t.db,
      scope,
      {
        riskUpserts: risks.map((r, index) => ({
          risk: r,
          first_detected_at: `2026-01-02T03:04:05.0${index}7999Z`,
          content_hash: `edge-${index}`,
        })),
        riskResolutions: [],
      },
      '2026-01-03T03:04:05.000001Z',
      [ledger.id],
    );
    // two of them resolved, at an instant with microseconds
    await writeRisks(
      t.db,
      scope,
      {
        riskUpserts: [],
        riskResolutions: risks.slice(3).map((r) => ({ identity_id: r.identity_id, id: r.id })),
      },
      '2026-01-04T05:06:07.999999Z',
      [ledger.id],
    );

    const { texts, cached: withText } = await riskTexts([ledger.id]);
    assert.deepEqual(
      risks.filter((r) => !withText.has(r.id)),
      [],
    );
    const rows = await findRisksOf(t.db, tenant.accountId, [ledger.id]);
    assert.equal(texts.get(ledger.id), JSON.stringify(rows.map(toApiRisk)));

    const byName = new Map<string, KubeJson>(
      JSON.parse(texts.get(ledger.id)!).map((r: KubeJson) => [r.name as string, r]),
    );
    const first = byName.get(risks[0]!.name)!;
    assert.equal(first.description, 'lone \ufffd surrogate, reversed pair \ufffd\ufffd');
    assert.equal(first.weight, 1e-7);
    assert.equal(first.score, 1e21);
    assert.equal(first.first_detected_at, '2026-01-02T03:04:05.007Z');
    // the second write marked the risks still open detected again
    assert.equal(first.last_detected_at, '2026-01-04T05:06:07.999Z');
    assert.equal(first.deleted_at, null);
    assert.ok(
      texts.get(ledger.id)!.includes('\u2028'),
      'U+2028 is written as itself, as JSON.stringify does',
    );
    assert.equal(byName.get('edge 4')!.deleted_at, '2026-01-04T05:06:07.999Z');
    assert.equal(Object.is(byName.get('edge 2')!.weight, 0), true);

    // the whole identity, cached and serialized the old way, over HTTP
    const detail = `${account()}/identities/${ledger.id}`;
    const cached = await getText(detail);
    await clearCache([ledger.id]);
    assertSameJson(cached, await getText(detail));
  });
});
