import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { ScannedVulnerability } from './model.js';
import { detectScanFormat, readScanReport } from './read-scan-report.js';
import { ScanReportBuilder } from './report-builder.js';

const SAMPLES = new URL('../../../sample/scans/', import.meta.url);
const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(name, SAMPLES), 'utf8'));

describe('format detection from content', () => {
  test('every sample is recognised as the format it is, whatever its file name says', () => {
    const expected: Record<string, string> = {
      'nginx-1.27.2.trivy.json': 'trivy',
      'storefront-api-3.8.0.trivy.json': 'trivy',
      'redis-7.4.1-alpine.grype.json': 'grype',
      'postgres-16.4.cdx.json': 'cyclonedx',
      'busybox-latest.cdx.json': 'cyclonedx',
    };
    assert.deepEqual(readdirSync(SAMPLES).sort(), Object.keys(expected).sort());
    for (const [name, format] of Object.entries(expected)) {
      assert.equal(detectScanFormat(sample(name)), format, name);
      const result = readScanReport(sample(name));
      assert.ok(result.ok && result.report.format === format, name);
    }
  });

  test('a Trivy report is not mistaken for Grype or CycloneDX, nor the other way round', () => {
    // Keys of one format added to another do not change what the document is.
    const trivy = sample('nginx-1.27.2.trivy.json') as Record<string, unknown>;
    assert.equal(detectScanFormat({ ...trivy, vulnerabilities: [] }), 'trivy');
    const grype = sample('redis-7.4.1-alpine.grype.json') as Record<string, unknown>;
    assert.equal(detectScanFormat({ ...grype, Results: [] }), 'grype');
    const bom = sample('postgres-16.4.cdx.json') as Record<string, unknown>;
    assert.equal(detectScanFormat({ ...bom, matches: [] }), 'cyclonedx');
  });

  test('a random JSON document is of unknown format, and says what was expected', () => {
    for (const doc of [
      {},
      { name: 'x', version: 1 },
      { Results: [] },
      { matches: [] },
      { bomFormat: 'SPDX' },
      { spdxVersion: 'SPDX-2.3' },
    ]) {
      const result = readScanReport(doc);
      assert.equal(result.ok, false);
      if (result.ok) continue;
      assert.equal(result.error.format, null);
      assert.equal(result.error.field, null);
      assert.match(
        result.error.message,
        /not a recognised scan report: expected Trivy JSON .*Grype JSON .*CycloneDX JSON/,
      );
    }
  });

  test('a document that is not an object says what it is', () => {
    for (const [doc, what] of [
      [[], 'an array'],
      [null, 'null'],
      ['text', 'a string'],
      [42, 'a number'],
    ] as const) {
      const result = readScanReport(doc);
      assert.ok(!result.ok && result.error.message.startsWith(`the document is ${what};`), String(doc));
      assert.ok(!result.ok && result.error.code === 'invalid_type');
    }
  });

  test('any JSON value either reads or is refused with a message; the reader never throws', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ SchemaVersion: fc.jsonValue(), Results: fc.jsonValue() }),
          fc.record({
            bomFormat: fc.constant('CycloneDX'),
            specVersion: fc.constant('1.5'),
            metadata: fc.jsonValue(),
            components: fc.jsonValue(),
          }),
          fc.record({ matches: fc.jsonValue(), source: fc.jsonValue() }),
        ),
        (doc) => {
          const result = readScanReport(doc);
          if (!result.ok) assert.ok(result.error.message.length > 0);
        },
      ),
    );
  });
});

describe('deduplication', () => {
  const vulnerability = (overrides: Partial<ScannedVulnerability>): ScannedVulnerability => ({
    id: 'CVE-2024-1234',
    aliases: [],
    packageName: 'openssl',
    packageVersion: '3.0.11',
    fixedVersions: [],
    severity: 'medium',
    scannerSeverity: 'MEDIUM',
    dataSource: { scanner: 'trivy', feed: 'debian', url: null },
    cvss: null,
    publishedAt: null,
    ...overrides,
  });
  const pkg = { name: 'openssl', version: '3.0.11', type: 'deb', purl: null };

  test('the same CVE for the same package twice counts once; CVE ids compare case-insensitively', () => {
    const builder = new ScanReportBuilder();
    builder.addVulnerability(vulnerability({ id: 'cve-2024-1234', fixedVersions: ['3.0.13'] }), pkg);
    builder.addVulnerability(
      vulnerability({
        severity: 'high',
        scannerSeverity: 'HIGH',
        fixedVersions: ['3.0.14', '3.0.13'],
        publishedAt: '2024-01-01T00:00:00.000Z',
      }),
      { ...pkg, purl: 'pkg:deb/debian/openssl@3.0.11' },
    );
    const report = builder.build({
      format: 'trivy',
      scanner: { name: 'trivy', version: null },
      scannedAt: null,
      image: {} as never,
    });
    assert.equal(report.vulnerabilities.length, 1);
    assert.deepEqual(report.vulnerabilities[0], {
      ...vulnerability({}),
      severity: 'high',
      scannerSeverity: 'HIGH',
      fixedVersions: ['3.0.14', '3.0.13'],
      publishedAt: '2024-01-01T00:00:00.000Z',
    });
    // The package is listed once, with the purl the second sighting knew.
    assert.deepEqual(report.packages, [{ ...pkg, purl: 'pkg:deb/debian/openssl@3.0.11' }]);
  });

  test('another version of the package, or another CVE, is another entry', () => {
    const builder = new ScanReportBuilder();
    builder.addVulnerability(vulnerability({}), pkg);
    builder.addVulnerability(vulnerability({ packageVersion: '3.0.13' }), { ...pkg, version: '3.0.13' });
    builder.addVulnerability(vulnerability({ id: 'CVE-2024-9999' }), pkg);
    const report = builder.build({
      format: 'trivy',
      scanner: { name: 'trivy', version: null },
      scannedAt: null,
      image: {} as never,
    });
    assert.equal(report.vulnerabilities.length, 3);
    assert.equal(report.packages.length, 2);
  });

  test('a Trivy report listing every finding twice reads the same as the original', () => {
    const doc = sample('nginx-1.27.2.trivy.json') as {
      Results: Array<{ Vulnerabilities: unknown[]; Packages: unknown[] }>;
    };
    const original = readScanReport(structuredClone(doc));
    for (const result of doc.Results) {
      result.Vulnerabilities = [...result.Vulnerabilities, ...structuredClone(result.Vulnerabilities)];
      result.Packages = [...result.Packages, ...structuredClone(result.Packages)];
    }
    doc.Results.push(structuredClone(doc.Results[0]!));
    assert.deepEqual(readScanReport(doc), original);
  });
});
