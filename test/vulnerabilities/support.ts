/**
 * Helpers for the vulnerability tests: the sample scans and feeds, pushes through the real
 * endpoints, an account holding the sample cluster with every sample scan, and oracles computed
 * from the pure readers' output (what the derived rows must say, found independently of the SQL).
 *
 * @example
 *   const account = await sampleAccount(t);           // cluster + scans, as the demo has them
 *   const rows = await cveReport(t, account);         // GET .../reports/inventory_cves as JSON
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openFeed } from '../../src/ingest/feeds/read-feed.js';
import type { ScanReport } from '../../src/ingest/vulnerabilities/model.js';
import { readScanReport } from '../../src/ingest/vulnerabilities/read-scan-report.js';
import { SEVERITIES, type Severity, severityRank } from '../../src/ingest/vulnerabilities/severity.js';
import { importFeed } from '../../src/modules/vulnerabilities/feed-service.js';
import { createCluster, pushSampleCluster } from '../ingest/sample.js';
import { createTenant, type TestApp, type TestTenant } from '../support/harness.js';

export const SCAN_FILES = [
  'nginx-1.27.2.trivy.json',
  'redis-7.4.1-alpine.grype.json',
  'postgres-16.4.cdx.json',
  'busybox-latest.cdx.json',
  'storefront-api-3.8.0.trivy.json',
] as const;
export type ScanFile = (typeof SCAN_FILES)[number];

const SCANS = new URL('../../sample/scans/', import.meta.url);
const FEEDS = new URL('../../sample/feeds/', import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: scan documents of every format
export type ScanDoc = any;

export const scanText = (file: ScanFile) => readFileSync(new URL(file, SCANS), 'utf8');
export const scanDoc = (file: ScanFile): ScanDoc => JSON.parse(scanText(file));
export const feedBytes = (file: 'epss.csv' | 'epss.csv.gz' | 'kev.json') =>
  readFileSync(new URL(file, FEEDS));

export function readSample(doc: ScanDoc): ScanReport {
  const result = readScanReport(doc);
  if (!result.ok) throw new Error(result.error.message);
  return result.report;
}

export interface Account {
  tenant: TestTenant;
  accountId: string;
  clusterId: string;
  token: string;
}

export async function pushScan(
  t: TestApp,
  account: Pick<Account, 'accountId' | 'clusterId' | 'token'>,
  payload: string | Buffer | object,
  headers: Record<string, string> = {},
) {
  return t.request({
    method: 'POST',
    url: `/accounts/${account.accountId}/clusters/${account.clusterId}/ingest/vulnerabilities`,
    token: account.token,
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export async function pushOk(t: TestApp, account: Account, payload: string | Buffer | object) {
  const res = await pushScan(t, account, payload);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** A fresh tenant whose account holds the sample cluster (its four List files) and, unless told, every scan. */
export async function sampleAccount(
  t: TestApp,
  options: { scans?: readonly ScanFile[] } = {},
): Promise<Account> {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, cluster.id);
  const account = { tenant, accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken };
  for (const file of options.scans ?? SCAN_FILES) await pushOk(t, account, scanText(file));
  return account;
}

/** Loads the sample EPSS and KEV files the way the CLI does (operator side). */
export async function importSampleFeeds(t: TestApp) {
  await importFeed(t.db, await openFeed(feedBytes('epss.csv')), null);
  await importFeed(t.db, await openFeed(feedBytes('kev.json')), null);
}

export async function get(
  t: TestApp,
  account: Pick<Account, 'token'>,
  url: string,
  headers?: Record<string, string>,
) {
  return t.request({ method: 'GET', url, token: account.token, ...(headers ? { headers } : {}) });
}

// biome-ignore lint/suspicious/noExplicitAny: API rows
export type Row = any;

export async function packages(t: TestApp, account: Account, query = ''): Promise<Row[]> {
  const res = await get(t, account, `/accounts/${account.accountId}/inventory_packages?limit=1000${query}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.entries.length, res.body.total_count, 'all rows fit one page');
  return res.body.entries;
}

export async function cveReport(t: TestApp, account: Account, query = ''): Promise<Row[]> {
  const res = await get(t, account, `/accounts/${account.accountId}/reports/inventory_cves${query}`);
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body));
  return res.body;
}

export const findRow = (rows: Row[], cve: string, pkg: string) =>
  rows.find((row) => row.cve_name === cve && row.package_name === pkg);

/** What the package rows must hold, computed from the readers' output of these reports. */
export function packageOracle(reports: ScanReport[]) {
  const key = (name: string, version: string) => `${name}@${version}`;
  const images = new Map<string, Set<string>>();
  const worst = new Map<string, Map<string, Severity>>();
  reports.forEach((report, index) => {
    for (const pkg of report.packages) {
      const set = images.get(key(pkg.name, pkg.version)) ?? new Set();
      images.set(key(pkg.name, pkg.version), set.add(String(index)));
    }
    for (const v of report.vulnerabilities) {
      const byId = worst.get(key(v.packageName, v.packageVersion)) ?? new Map<string, Severity>();
      const current = byId.get(v.id);
      if (!current || severityRank(v.severity) > severityRank(current)) byId.set(v.id, v.severity);
      worst.set(key(v.packageName, v.packageVersion), byId);
    }
  });
  return new Map(
    [...images].map(([name, set]) => {
      const counts = Object.fromEntries(SEVERITIES.map((s) => [`${s}_count`, 0])) as Record<string, number>;
      for (const severity of worst.get(name)?.values() ?? []) counts[`${severity}_count`]! += 1;
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      return [name, { images_count: set.size, ...counts, total_vulerabilities_count: total }];
    }),
  );
}

/** Checks rows are in order by `value`, then by the deterministic tiebreak the endpoint promises. */
export function assertSorted<T>(
  rows: T[],
  value: (row: T) => number | string | boolean,
  direction: 'asc' | 'desc',
) {
  for (let i = 1; i < rows.length; i++) {
    const a = value(rows[i - 1] as T);
    const b = value(rows[i] as T);
    const ok = direction === 'asc' ? a <= b : a >= b;
    assert.ok(ok, `row ${i}: ${String(a)} then ${String(b)} is not ${direction}`);
  }
}
