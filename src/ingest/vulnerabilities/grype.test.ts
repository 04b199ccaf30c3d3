import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { readScanReport, type ScanReadFailure } from './read-scan-report.js';

// biome-ignore lint/suspicious/noExplicitAny: tests reshape sample documents freely
type Doc = any;
const sample = (): Doc =>
  JSON.parse(
    readFileSync(new URL('../../../sample/scans/redis-7.4.1-alpine.grype.json', import.meta.url), 'utf8'),
  );
const read = (doc: Doc) => {
  const result = readScanReport(doc);
  if (!result.ok) assert.fail(result.error.message);
  return result.report;
};
const redisWith = (edit: (doc: Doc) => void): Doc => {
  const doc = sample();
  edit(doc);
  return doc;
};

describe('Grype reader on the redis:7.4.1-alpine sample', () => {
  test('image from source.target: the repo digest, not the platform manifest digest', () => {
    const report = read(sample());
    assert.equal(report.format, 'grype');
    assert.deepEqual(report.scanner, { name: 'grype', version: '0.77.4' });
    // Grype writes local time with an offset; the model holds UTC.
    assert.equal(report.scannedAt, '2024-11-18T08:03:11.488Z');
    assert.deepEqual(report.image, {
      reference: 'redis:7.4.1-alpine',
      name: 'redis',
      registry: 'docker.io',
      repository: 'docker.io/library/redis',
      tag: '7.4.1-alpine',
      digest: 'sha256:342235f88439bd7b72a3087008d3593ac1879de0df089dd507f9f78128bb2900',
      imageId: 'sha256:8fb709771e96bb1256869d16cdd42a02f11709dfba294d755b450669e663a435',
      repoDigests: ['redis@sha256:342235f88439bd7b72a3087008d3593ac1879de0df089dd507f9f78128bb2900'],
      repoTags: ['redis:7.4.1-alpine'],
    });
  });

  test('packages are the matched artifacts; severities in Grype vocabulary are mapped', () => {
    const report = read(sample());
    assert.equal(report.packages.length, 11);
    assert.deepEqual(
      report.packages.find((p) => p.name === 'stdlib'),
      {
        name: 'stdlib',
        version: 'go1.18.2',
        type: 'golang',
        purl: 'pkg:golang/stdlib@1.18.2',
      },
    );
    assert.equal(report.vulnerabilities.length, 19);
    const counts: Record<string, number> = {};
    for (const v of report.vulnerabilities) counts[v.severity] = (counts[v.severity] ?? 0) + 1;
    assert.deepEqual(counts, { high: 6, negligible: 6, medium: 3, critical: 2, low: 1, unspecified: 1 });
    const zlib = report.vulnerabilities.find((v) => v.id === 'CVE-2023-45853');
    assert.equal(zlib?.severity, 'critical');
    assert.deepEqual(zlib?.fixedVersions, []); // state wont-fix
    assert.deepEqual(zlib?.dataSource, {
      scanner: 'grype',
      feed: 'debian:distro:debian:12',
      url: 'https://security-tracker.debian.org/tracker/CVE-2023-45853',
    });
    // The Debian record has no score of its own: the related NVD record gives it.
    assert.equal(zlib?.cvss?.score, 9.8);
    assert.deepEqual(report.vulnerabilities.find((v) => v.id === 'CVE-2023-24538')?.fixedVersions, [
      '1.19.8',
      '1.20.3',
    ]);
  });

  test('a GHSA match keeps its id and names the CVE as an alias', () => {
    const runc = read(sample()).vulnerabilities.find(
      (v) => v.packageName === 'github.com/opencontainers/runc',
    );
    assert.equal(runc?.id, 'GHSA-xr7r-f8xq-vfvv');
    assert.deepEqual(runc?.aliases, ['CVE-2024-21626']);
    assert.deepEqual(runc?.cvss, {
      score: 8.6,
      version: '3.1',
      vector: 'CVSS:3.1/AV:L/AC:L/PR:N/UI:R/S:C/C:H/I:H/A:H',
    });
    assert.equal(runc?.dataSource.feed, 'github:language:go');
  });
});

describe('Grype reader edge cases', () => {
  test('without repo digests the manifest digest is the image digest', () => {
    const report = read(redisWith((doc) => (doc.source.target.repoDigests = [])));
    assert.equal(
      report.image.digest,
      'sha256:c7a95e092d6822f5540d412a8d0bb9ff6a746ffbb9d4f77e5f2275f6ff965103',
    );
  });

  test('a match without severity is unspecified; an empty timestamp is no scan time', () => {
    const report = read(
      redisWith((doc) => {
        delete doc.matches[0].vulnerability.severity;
        doc.descriptor.timestamp = '';
      }),
    );
    assert.equal(report.vulnerabilities[0]?.severity, 'unspecified');
    assert.equal(report.vulnerabilities[0]?.scannerSeverity, null);
    assert.equal(report.scannedAt, null);
  });

  test('the same CVE matched twice for one package counts once: the more severe match, fixes merged', () => {
    const report = read(
      redisWith((doc) => {
        const again = structuredClone(doc.matches[4]); // CVE-2024-0727 in libssl3, Medium
        again.vulnerability.severity = 'High';
        again.vulnerability.namespace = 'nvd:cpe';
        again.vulnerability.fix.versions = ['3.0.14-1~deb12u1'];
        doc.matches.push(again);
      }),
    );
    const matches = report.vulnerabilities.filter((v) => v.id === 'CVE-2024-0727');
    assert.equal(matches.length, 1);
    assert.equal(matches[0]?.severity, 'high');
    assert.equal(matches[0]?.dataSource.feed, 'nvd:cpe');
    assert.deepEqual(matches[0]?.fixedVersions, ['3.0.14-1~deb12u1', '3.0.13-1~deb12u1']);
    assert.equal(report.vulnerabilities.length, 19);
  });
});

describe('Grype reader refusals name the format and the field', () => {
  const cases: Array<[string, (doc: Doc) => void, string, string]> = [
    [
      'an artifact without name',
      (doc) => delete doc.matches[3].artifact.name,
      'matches[3].artifact.name',
      'required',
    ],
    [
      'an artifact version of the wrong type',
      (doc) => (doc.matches[0].artifact.version = ['1']),
      'matches[0].artifact.version',
      'invalid_type',
    ],
    [
      'a match without vulnerability',
      (doc) => delete doc.matches[2].vulnerability,
      'matches[2].vulnerability',
      'required',
    ],
    [
      'a vulnerability without id',
      (doc) => (doc.matches[1].vulnerability.id = ''),
      'matches[1].vulnerability.id',
      'required',
    ],
    [
      'a severity outside Grype vocabulary',
      (doc) => (doc.matches[1].vulnerability.severity = 'Info'),
      'matches[1].vulnerability.severity',
      'invalid_value',
    ],
    ['a directory scan', (doc) => (doc.source.type = 'directory'), 'source.type', 'invalid_value'],
    ['no source', (doc) => delete doc.source, 'source', 'required'],
    ['no userInput', (doc) => delete doc.source.target.userInput, 'source.target.userInput', 'required'],
    ['matches not a list', (doc) => (doc.matches = {}), 'matches', 'invalid_type'],
    [
      'fix versions not a list',
      (doc) => (doc.matches[0].vulnerability.fix.versions = '1.2'),
      'matches[0].vulnerability.fix.versions',
      'invalid_type',
    ],
    [
      'a fix version not a string',
      (doc) => (doc.matches[0].vulnerability.fix.versions = [1]),
      'matches[0].vulnerability.fix.versions[0]',
      'invalid_type',
    ],
    [
      'a related vulnerability without id',
      (doc) => delete doc.matches[0].relatedVulnerabilities[0].id,
      'matches[0].relatedVulnerabilities[0].id',
      'required',
    ],
    [
      'a CVSS entry without base score',
      (doc) => delete doc.matches[18].relatedVulnerabilities[0].cvss[0].metrics.baseScore,
      'matches[18].relatedVulnerabilities[0].cvss[0].metrics.baseScore',
      'required',
    ],
    [
      'a malformed manifest digest',
      (doc) => (doc.source.target.manifestDigest = 'sha256:xyz'),
      'source.target.manifestDigest',
      'invalid_format',
    ],
    [
      'a malformed descriptor timestamp',
      (doc) => (doc.descriptor.timestamp = '20/05/2024'),
      'descriptor.timestamp',
      'invalid_format',
    ],
  ];
  for (const [name, edit, field, code] of cases) {
    test(name, () => {
      const result = readScanReport(redisWith(edit));
      assert.equal(result.ok, false);
      const error = (result as { error: ScanReadFailure }).error;
      assert.equal(error.format, 'grype');
      assert.equal(error.field, field);
      assert.equal(error.code, code);
      assert.ok(error.message.startsWith(`recognised Grype JSON, but ${field} `), error.message);
    });
  }
});
