import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readScanReport } from './read-scan-report.js';

// biome-ignore lint/suspicious/noExplicitAny: tests build documents freely
type Doc = any;

/** The one vulnerability of a minimal BOM whose vulnerability carries these ratings. */
function rated(ratings: Doc[], source?: string) {
  const result = readScanReport({
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    metadata: { component: { type: 'container', name: 'alpine:3.19' } },
    components: [{ type: 'library', 'bom-ref': 'ref-p', name: 'p', version: '1' }],
    vulnerabilities: [
      {
        id: 'CVE-2024-1',
        ratings,
        affects: [{ ref: 'ref-p' }],
        ...(source ? { source: { name: source } } : {}),
      },
    ],
  });
  if (!result.ok) assert.fail(result.error.message);
  return result.report.vulnerabilities[0];
}

describe('CycloneDX ratings', () => {
  test('without a feed, the most severe rating wins', () => {
    const v = rated([
      { source: { name: 'debian' }, severity: 'low' },
      { source: { name: 'nvd' }, severity: 'high', score: 7.8, method: 'CVSSv31' },
      { source: { name: 'redhat' }, severity: 'medium' },
    ]);
    assert.equal(v?.severity, 'high');
    assert.equal(v?.scannerSeverity, 'high');
    assert.deepEqual(v?.cvss, { score: 7.8, version: '3.1', vector: null });
  });

  test("the feed's own rating wins over more severe ones", () => {
    const v = rated(
      [
        { source: { name: 'nvd' }, severity: 'critical', score: 9.8, method: 'CVSSv31' },
        { source: { name: 'debian' }, severity: 'low' },
      ],
      'debian',
    );
    assert.equal(v?.severity, 'low');
    assert.equal(v?.dataSource.feed, 'debian');
    assert.equal(v?.cvss?.score, 9.8); // the feed has no score: NVD's
  });

  test('a CVSS score without a severity word rates by the CVSS scale; EPSS/KEV "other" scores do not rate', () => {
    assert.equal(rated([{ score: 9.1, method: 'CVSSv4' }])?.severity, 'critical');
    assert.equal(rated([{ score: 9.1, method: 'CVSSv4' }])?.cvss?.version, '4.0');
    const grypeStyle = rated([
      { source: { name: 'FIRST' }, score: 0.97, method: 'other' },
      { source: { name: 'CISA KEV Catalog' }, score: 1, method: 'other' },
    ]);
    assert.equal(grypeStyle?.severity, 'unspecified');
    assert.equal(grypeStyle?.cvss, null);
  });

  test('info and none are negligible; unknown alone or no rating at all is unspecified', () => {
    assert.equal(rated([{ severity: 'info' }])?.severity, 'negligible');
    assert.equal(rated([{ severity: 'none' }, { severity: 'unknown' }])?.severity, 'negligible');
    assert.equal(rated([{ severity: 'unknown' }])?.severity, 'unspecified');
    assert.equal(rated([])?.severity, 'unspecified');
  });
});
