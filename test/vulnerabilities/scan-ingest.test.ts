/**
 * POST .../ingest/vulnerabilities: the three formats through the endpoint, gzip, refusals that
 * store nothing, Idempotency-Key, and a newer scan of an image replacing the older one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import {
  type Account,
  cveReport,
  findRow,
  packages,
  pushOk,
  pushScan,
  readSample,
  scanDoc,
  scanText,
} from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function emptyAccount(): Promise<Account> {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  return { tenant, accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken };
}

async function storedCounts(account: Account) {
  const { rows } = await t.db.query<{ images: number; findings: number; packages: number; cves: number }>(
    `select (select count(*) from vulnerability_images where account_id = $1) as images,
            (select count(*) from vulnerability_findings where account_id = $1) as findings,
            (select count(*) from vulnerability_packages where account_id = $1) as packages,
            (select count(*) from vulnerability_cves where account_id = $1) as cves`,
    [account.accountId],
  );
  return rows[0];
}

describe('the three formats through the endpoint', () => {
  const cases = [
    { file: 'nginx-1.27.2.trivy.json', format: 'trivy', repo: 'docker.io/library/nginx', tag: '1.27.2' },
    {
      file: 'redis-7.4.1-alpine.grype.json',
      format: 'grype',
      repo: 'docker.io/library/redis',
      tag: '7.4.1-alpine',
    },
    { file: 'postgres-16.4.cdx.json', format: 'cyclonedx', repo: 'docker.io/library/postgres', tag: '16.4' },
    {
      file: 'busybox-latest.cdx.json',
      format: 'cyclonedx',
      repo: 'docker.io/library/busybox',
      tag: 'latest',
    },
  ] as const;
  for (const { file, format, repo, tag } of cases) {
    test(`${file}: detected as ${format}; its packages and findings are stored`, async () => {
      const account = await emptyAccount();
      const report = readSample(scanDoc(file));
      const body = await pushOk(t, account, scanText(file));
      assert.equal(body.format, format);
      assert.equal(body.outcome, 'created');
      assert.equal(body.cluster_id, account.clusterId);
      assert.deepEqual(body.image, {
        image_repo: repo,
        image_name: repo.split('/').at(-1),
        image_tag: tag,
        image_digest: report.image.digest,
      });
      assert.equal(body.scanned_at, report.scannedAt);
      assert.equal(body.packages, report.packages.length);
      assert.equal(body.vulnerabilities, report.vulnerabilities.length);
      const listed = await packages(t, account);
      assert.deepEqual(
        listed.map((p) => `${p.name}@${p.version}`).sort(),
        report.packages.map((p) => `${p.name}@${p.version}`).sort(),
      );
      const rows = await cveReport(t, account);
      assert.deepEqual(
        rows.map((r) => `${r.cve_name} ${r.package_name}@${r.package_version}`).sort(),
        report.vulnerabilities.map((v) => `${v.id} ${v.packageName}@${v.packageVersion}`).sort(),
      );
      assert.ok(rows.every((r) => r.affected_images_count === 1 && r.cluster_id === account.clusterId));
    });
  }

  test('a gzip body is accepted, with Content-Encoding or recognised by its magic bytes', async () => {
    const account = await emptyAccount();
    const zipped = gzipSync(scanText('nginx-1.27.2.trivy.json'));
    const announced = await pushScan(t, account, zipped, { 'content-encoding': 'gzip' });
    assert.equal(announced.status, 200, announced.text);
    const sniffed = await pushScan(t, account, gzipSync(scanText('storefront-api-3.8.0.trivy.json')), {
      'content-type': 'application/octet-stream',
    });
    assert.equal(sniffed.status, 200, sniffed.text);
    assert.equal((await storedCounts(account))?.images, 2);
  });
});

describe('refused reports store nothing', () => {
  const refusals: { name: string; payload: () => string | Buffer; field: string; message: RegExp }[] = [
    {
      name: 'a Kubernetes List is no scan report',
      payload: () => JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }),
      field: 'body',
      message: /not a recognised scan report: expected Trivy JSON/,
    },
    {
      name: 'a Trivy report with a finding without PkgName',
      payload: () => {
        const doc = scanDoc('nginx-1.27.2.trivy.json');
        delete doc.Results[0].Vulnerabilities[3].PkgName;
        return JSON.stringify(doc);
      },
      field: 'Results[0].Vulnerabilities[3].PkgName',
      message: /^recognised Trivy JSON, but Results\[0\]\.Vulnerabilities\[3\]\.PkgName is missing/,
    },
    {
      name: 'a Grype match with an unknown severity word',
      payload: () => {
        const doc = scanDoc('redis-7.4.1-alpine.grype.json');
        doc.matches[1].vulnerability.severity = 'Catastrophic';
        return JSON.stringify(doc);
      },
      field: 'matches[1].vulnerability.severity',
      message: /^recognised Grype JSON, but matches\[1\]\.vulnerability\.severity/,
    },
    {
      name: 'a CycloneDX BOM whose vulnerability affects nothing known',
      payload: () => {
        const doc = scanDoc('postgres-16.4.cdx.json');
        doc.vulnerabilities[0].affects = [{ ref: 'no-such-component' }];
        return JSON.stringify(doc);
      },
      field: 'vulnerabilities[0].affects[0].ref',
      message: /^recognised CycloneDX JSON, but vulnerabilities\[0\]\.affects\[0\]\.ref/,
    },
    {
      name: 'a body that is not JSON',
      payload: () => `${scanText('nginx-1.27.2.trivy.json').slice(0, 500)}`,
      field: 'body',
      message: /^is not valid JSON/,
    },
    { name: 'an empty body', payload: () => '', field: 'body', message: /is empty/ },
    {
      name: 'broken gzip',
      payload: () => gzipSync(scanText('nginx-1.27.2.trivy.json')).subarray(0, 200),
      field: 'body',
      message: /not valid gzip/,
    },
  ];
  for (const refusal of refusals) {
    test(`${refusal.name} -> 400 naming the format and the field`, async () => {
      const account = await emptyAccount();
      // A valid scan first: the refused push must not disturb what is stored.
      await pushOk(t, account, scanText('storefront-api-3.8.0.trivy.json'));
      const before = await storedCounts(account);
      const res = await pushScan(t, account, refusal.payload());
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'validation_failed');
      const [detail] = res.body.validation_details;
      assert.equal(detail.field, refusal.field);
      assert.equal(detail.param, 'body');
      assert.match(detail.message, refusal.message);
      assert.deepEqual(await storedCounts(account), before);
    });
  }

  test('an unknown Content-Encoding is 415; a cluster of another account is 404', async () => {
    const account = await emptyAccount();
    const res = await pushScan(t, account, scanText('nginx-1.27.2.trivy.json'), { 'content-encoding': 'br' });
    assert.equal(res.status, 415, res.text);
    const other = await emptyAccount();
    const foreign = await pushScan(
      t,
      { ...account, clusterId: other.clusterId },
      scanText('nginx-1.27.2.trivy.json'),
    );
    assert.equal(foreign.status, 404, foreign.text);
    assert.deepEqual(await storedCounts(account), { images: 0, findings: 0, packages: 0, cves: 0 });
    assert.deepEqual(await storedCounts(other), { images: 0, findings: 0, packages: 0, cves: 0 });
  });
});

describe('Idempotency-Key', () => {
  test('a retry replays the first answer; the same key with another body is 409', async () => {
    const account = await emptyAccount();
    const headers = { 'idempotency-key': 'scan-push-1' };
    const first = await pushScan(t, account, scanText('nginx-1.27.2.trivy.json'), headers);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const retry = await pushScan(t, account, scanText('nginx-1.27.2.trivy.json'), headers);
    assert.equal(retry.status, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, first.body);
    const conflict = await pushScan(t, account, scanText('storefront-api-3.8.0.trivy.json'), headers);
    assert.equal(conflict.status, 409, conflict.text);
    assert.equal((await storedCounts(account))?.images, 1);
  });
});

describe('a newer scan of the same image replaces the older one', () => {
  test('findings gone from the rescan leave the reports; packages no image holds are removed', async () => {
    const account = await emptyAccount();
    const old = scanDoc('nginx-1.27.2.trivy.json');
    await pushOk(t, account, old);
    const before = await cveReport(t, account);
    assert.ok(findRow(before, 'CVE-2023-45853', 'zlib1g'));

    const rescan = scanDoc('nginx-1.27.2.trivy.json');
    rescan.CreatedAt = '2024-11-25T08:00:00Z';
    const result = rescan.Results[0];
    // zlib1g was upgraded: its package row and its finding disappear; libssl3 got a new fix.
    result.Vulnerabilities = result.Vulnerabilities.filter(
      (v: { PkgName: string }) => v.PkgName !== 'zlib1g',
    );
    result.Packages = result.Packages.filter((p: { Name: string }) => p.Name !== 'zlib1g');
    const libssl = result.Vulnerabilities.find(
      (v: { VulnerabilityID: string; PkgName: string }) =>
        v.VulnerabilityID === 'CVE-2024-0727' && v.PkgName === 'libssl3',
    );
    libssl.Severity = 'CRITICAL';
    const body = await pushOk(t, account, rescan);
    assert.equal(body.outcome, 'replaced');

    const after = await cveReport(t, account);
    assert.equal(after.length, before.length - 1);
    assert.equal(findRow(after, 'CVE-2023-45853', 'zlib1g'), undefined);
    const row = findRow(after, 'CVE-2024-0727', 'libssl3');
    assert.equal(row.severity, 'critical');
    assert.equal(row.first_seen_at, findRow(before, 'CVE-2024-0727', 'libssl3').first_seen_at);
    assert.equal(row.last_seen_at, '2024-11-25T08:00:00.000Z');
    const listed = await packages(t, account);
    assert.ok(!listed.some((p) => p.name === 'zlib1g'));
    const libsslPackage = listed.find((p) => p.name === 'libssl3');
    assert.ok(libsslPackage.critical_count >= 1);
    assert.equal((await storedCounts(account))?.images, 1);
  });

  test('an older scan pushed later is superseded and changes nothing', async () => {
    const account = await emptyAccount();
    await pushOk(t, account, scanText('nginx-1.27.2.trivy.json'));
    const before = await cveReport(t, account);
    const older = scanDoc('nginx-1.27.2.trivy.json');
    older.CreatedAt = '2024-01-01T00:00:00Z';
    older.Results[0].Vulnerabilities = [];
    const body = await pushOk(t, account, older);
    assert.equal(body.outcome, 'superseded');
    assert.deepEqual(await cveReport(t, account), before);
  });

  test('a shared finding stays while another image still has it, with its image count', async () => {
    const account = await emptyAccount();
    await pushOk(t, account, scanText('nginx-1.27.2.trivy.json'));
    await pushOk(t, account, scanText('postgres-16.4.cdx.json'));
    assert.equal(findRow(await cveReport(t, account), 'CVE-2023-45853', 'zlib1g').affected_images_count, 2);
    const rescan = scanDoc('nginx-1.27.2.trivy.json');
    rescan.CreatedAt = '2024-11-30T00:00:00Z';
    rescan.Results[0].Vulnerabilities = rescan.Results[0].Vulnerabilities.filter(
      (v: { PkgName: string }) => v.PkgName !== 'zlib1g',
    );
    await pushOk(t, account, rescan);
    const row = findRow(await cveReport(t, account), 'CVE-2023-45853', 'zlib1g');
    assert.equal(row.affected_images_count, 1);
    assert.deepEqual(
      row.associated_images.map((i: { image_name: string }) => i.image_name),
      ['postgres'],
    );
    // Still listed in nginx's package list, so images_count stays 2; its vulnerability count is postgres's.
    const zlib = (await packages(t, account)).find((p) => p.name === 'zlib1g');
    assert.equal(zlib.images_count, 2);
    assert.equal(zlib.critical_count, 1);
  });

  test("a CVE row of one image's finding reads the same whether it was written alone or as the aggregate", async () => {
    // Rows only one image has are written from its finding directly; rows several images share
    // go through the ordered aggregate (derived-store.ts). Postgres alone writes every row the
    // first way; nginx then shares some; nginx rescanned clean leaves those to postgres again,
    // recomputed by the aggregate: they must read exactly as postgres alone wrote them.
    const account = await emptyAccount();
    await pushOk(t, account, scanText('postgres-16.4.cdx.json'));
    const alone = await cveReport(t, account);
    await pushOk(t, account, scanText('nginx-1.27.2.trivy.json'));
    const shared = (await cveReport(t, account)).filter((row) => row.affected_images_count === 2);
    assert.ok(shared.length > 0);
    const rescan = scanDoc('nginx-1.27.2.trivy.json');
    rescan.CreatedAt = '2024-12-01T00:00:00Z';
    rescan.Results[0].Vulnerabilities = [];
    await pushOk(t, account, rescan);
    const recomputed = await cveReport(t, account);
    const key = (row: { cve_name: string; package_name: string }) => `${row.cve_name} ${row.package_name}`;
    for (const row of shared) assert.ok(findRow(recomputed, row.cve_name, row.package_name), key(row));
    const byKey = (rows: { cve_name: string; package_name: string }[]) =>
      [...rows].sort((a, b) => key(a).localeCompare(key(b)));
    assert.deepEqual(byKey(recomputed), byKey(alone));
  });
});
