/**
 * POST /feeds/import: who may import (tenant admins of the FEED_ADMIN_TENANT tenant only), EPSS
 * (plain and gzip) and KEV files replacing the previous feed atomically, and CVE report rows
 * picking the new values on their next read without any rescan.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Level, Role } from '../../src/http/actor.js';
import { login, startTestApp, type TestApp } from '../support/harness.js';
import { type Account, cveReport, feedBytes, findRow, sampleAccount, scanText } from './support.js';

const OPERATORS = `operators-${process.pid}`;
let t: TestApp;
let operator: { tenantId: string; token: string };
let customer: Account;

before(async () => {
  t = await startTestApp({ FEED_ADMIN_TENANT: OPERATORS });
  const boot = await t.tenancy.bootstrap({ tenant: OPERATORS, account: 'ops', user: 'ops-admin' });
  operator = { tenantId: boot.tenant_id, token: await login(t, boot.access_key_id, boot.secret_key) };
  customer = await sampleAccount(t, {
    scans: ['redis-7.4.1-alpine.grype.json', 'storefront-api-3.8.0.trivy.json'],
  });
});
after(() => t.close());

async function operatorUser(level: Level, role: Role, keyAccountId?: string) {
  const { user_id } = await t.tenancy.createUser({ tenantId: operator.tenantId, name: `u-${Math.random()}` });
  const accountId = level === 'account' ? (keyAccountId ?? null) : null;
  await t.tenancy.assignRole({ tenantId: operator.tenantId, userId: user_id, level, accountId, role });
  const key = await t.tenancy.createAccessKey({
    tenantId: operator.tenantId,
    userId: user_id,
    name: 'k',
    scope: keyAccountId ? 'account' : 'tenant',
    accountId: keyAccountId ?? null,
  });
  return login(t, key.access_key_id, key.secret_key);
}

function importFeed(payload: string | Buffer, headers: Record<string, string> = {}, token = operator.token) {
  return t.request({
    method: 'POST',
    url: '/feeds/import',
    token,
    payload,
    headers: { 'content-type': 'application/octet-stream', ...headers },
  });
}

const zlib = async () => findRow(await cveReport(t, customer), 'CVE-2023-45853', 'zlib1g');
const runc = async () =>
  findRow(await cveReport(t, customer), 'GHSA-xr7r-f8xq-vfvv', 'github.com/opencontainers/runc');
const log4shell = async () =>
  findRow(await cveReport(t, customer), 'CVE-2021-44228', 'org.apache.logging.log4j:log4j-core');

describe('imports by the operator tenant', () => {
  test('EPSS, plain CSV: rows, version and date; report rows pick the scores at once', async () => {
    assert.equal((await zlib()).epss_score, null, 'no feed yet');
    const res = await importFeed(feedBytes('epss.csv'), { 'content-type': 'text/csv' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      { ...res.body, imported_at: undefined },
      {
        feed: 'epss',
        rows: 57,
        compressed: false,
        version: 'v2023.03.01',
        published_at: '2024-07-01T00:00:00.000Z',
        imported_at: undefined,
      },
    );
    assert.equal((await zlib()).epss_score, 0.01047);
    assert.equal((await runc()).epss_percentile, 0.92165, 'through the GHSA alias CVE-2024-21626');
  });

  test('EPSS gzip, by magic bytes or Content-Encoding', async () => {
    const sniffed = await importFeed(feedBytes('epss.csv.gz'), { 'content-type': 'application/gzip' });
    assert.equal(sniffed.status, 200, sniffed.text);
    assert.equal(sniffed.body.compressed, true);
    const announced = await importFeed(gzipSync(feedBytes('epss.csv')), { 'content-encoding': 'gzip' });
    assert.equal(announced.status, 200, announced.text);
    assert.equal(announced.body.compressed, true);
    assert.equal(announced.body.rows, 57);
  });

  test('KEV: known exploited CVEs show in the report; a re-import replaces the catalog', async () => {
    const res = await importFeed(feedBytes('kev.json'), { 'content-type': 'application/json' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.feed, 'kev');
    assert.equal(res.body.rows, 7);
    assert.equal(res.body.version, '2024.07.01');
    assert.equal((await log4shell()).is_known_exploited, true);
    const catalog = JSON.parse(feedBytes('kev.json').toString('utf8'));
    catalog.vulnerabilities = catalog.vulnerabilities.filter(
      (v: { cveID: string }) => v.cveID !== 'CVE-2021-44228',
    );
    const replaced = await importFeed(JSON.stringify(catalog));
    assert.equal(replaced.body.rows, 6);
    assert.equal((await log4shell()).is_known_exploited, false);
  });

  test('an EPSS re-import replaces every score: a CVE it leaves out has none any more', async () => {
    const res = await importFeed('cve,epss,percentile\nCVE-2023-45853,0.5,0.9\n');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.rows, 1);
    assert.equal(res.body.version, null);
    assert.equal((await zlib()).epss_score, 0.5);
    assert.equal((await log4shell()).epss_score, null);
  });

  test('a bad file is 400 naming the line or field, and leaves the feed as it was', async () => {
    const before = await cveReport(t, customer);
    const rows = Array.from({ length: 12_000 }, (_, i) => `CVE-2020-${10_000 + i},0.1,0.2`);
    // The bad line comes after several batches were written: all of them are rolled back.
    const badEpss = `cve,epss,percentile\n${rows.join('\n')}\nCVE-2023-45853,1.7,0.9\n`;
    const epss = await importFeed(badEpss);
    assert.equal(epss.status, 400, epss.text);
    assert.equal(epss.body.validation_details[0].field, 'line 12002');
    assert.match(
      epss.body.validation_details[0].message,
      /^recognised FIRST EPSS CSV, but line 12002: epss is "1.7"/,
    );
    const catalog = JSON.parse(feedBytes('kev.json').toString('utf8'));
    delete catalog.vulnerabilities[2].cveID;
    const kev = await importFeed(JSON.stringify(catalog));
    assert.equal(kev.status, 400, kev.text);
    assert.equal(kev.body.validation_details[0].field, 'vulnerabilities[2].cveID');
    const scan = await importFeed(scanText('redis-7.4.1-alpine.grype.json'));
    assert.equal(scan.status, 400, scan.text);
    assert.match(scan.body.validation_details[0].message, /not a recognised feed/);
    const empty = await importFeed('');
    assert.equal(empty.status, 400);
    assert.deepEqual(await cveReport(t, customer), before);
    const { rows: counts } = await t.db.query<{ n: number }>('select count(*) as n from epss_scores');
    assert.equal(counts[0]?.n, 1);
  });
});

describe('who may import', () => {
  test('only tenant admins of the operator tenant, through a tenant-scoped key', async () => {
    const before = await cveReport(t, customer);
    const ops = await t.tenancy.createAccount({ tenantId: operator.tenantId, name: 'ops-2' });
    const refused = [
      ['an editor of the operator tenant', await operatorUser('tenant', 'editor')],
      ['an account admin of the operator tenant', await operatorUser('account', 'admin', ops.account_id)],
      ['a tenant admin through an account-scoped key', await operatorUser('tenant', 'admin', ops.account_id)],
      ["another tenant's admin", customer.token],
    ] as const;
    for (const [who, token] of refused) {
      const res = await importFeed(feedBytes('epss.csv'), {}, token);
      assert.equal(res.status, 403, who);
      assert.equal(res.body.code, 'forbidden', who);
    }
    assert.deepEqual(await cveReport(t, customer), before);
    const allowed = await importFeed(feedBytes('epss.csv'), {}, await operatorUser('tenant', 'admin'));
    assert.equal(allowed.status, 200, allowed.text);
  });

  test('without FEED_ADMIN_TENANT nobody imports over HTTP', async () => {
    const other = await startTestApp();
    try {
      const boot = await other.tenancy.bootstrap({ tenant: OPERATORS, account: 'ops', user: 'ops-admin' });
      const token = await login(other, boot.access_key_id, boot.secret_key);
      const res = await other.request({
        method: 'POST',
        url: '/feeds/import',
        token,
        payload: feedBytes('kev.json'),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 403, res.text);
      assert.match(res.body.message, /FEED_ADMIN_TENANT/);
    } finally {
      await other.close();
    }
  });
});
