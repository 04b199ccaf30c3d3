import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { readScanReport, type ScanReadFailure } from './read-scan-report.js';

// biome-ignore lint/suspicious/noExplicitAny: tests reshape sample documents freely
type Doc = any;
const sample = (name: string): Doc =>
  JSON.parse(readFileSync(new URL(`../../../sample/scans/${name}`, import.meta.url), 'utf8'));
const read = (doc: Doc) => {
  const result = readScanReport(doc);
  if (!result.ok) assert.fail(result.error.message);
  return result.report;
};
const refusal = (doc: Doc): ScanReadFailure => {
  const result = readScanReport(doc);
  assert.equal(result.ok, false, 'expected the report to be refused');
  return (result as { error: ScanReadFailure }).error;
};
/** The nginx sample with one change made by `edit`. */
const nginxWith = (edit: (doc: Doc) => void): Doc => {
  const doc = sample('nginx-1.27.2.trivy.json');
  edit(doc);
  return doc;
};

describe('Trivy reader on the samples', () => {
  test('nginx:1.27.2 (with --list-all-pkgs): image, scanner, packages and vulnerabilities', () => {
    const report = read(sample('nginx-1.27.2.trivy.json'));
    assert.equal(report.format, 'trivy');
    assert.deepEqual(report.scanner, { name: 'trivy', version: null });
    assert.equal(report.scannedAt, '2024-11-18T09:12:44.318Z');
    assert.deepEqual(report.image, {
      reference: 'nginx:1.27.2',
      name: 'nginx',
      registry: 'docker.io',
      repository: 'docker.io/library/nginx',
      tag: '1.27.2',
      digest: 'sha256:b234c7b099c1265d4927c74bb87ea754b8b674c9eed1f43f28d7a1d5e351c388',
      imageId: 'sha256:9d1ead7ecddfe02f4b317fa592ce2fee6e3808b6504de408e8809d653654afeb',
      repoDigests: ['nginx@sha256:b234c7b099c1265d4927c74bb87ea754b8b674c9eed1f43f28d7a1d5e351c388'],
      repoTags: ['nginx:1.27.2'],
    });
    // Every listed package, vulnerable or not; epoch and release joined as in InstalledVersion,
    // so the vulnerable packages are the same rows and the count stays at the 30 listed.
    assert.equal(report.packages.length, 30);
    assert.deepEqual(
      report.packages.find((p) => p.name === 'login'),
      {
        name: 'login',
        version: '1:4.13+dfsg1-1+b1',
        type: 'deb',
        purl: 'pkg:deb/debian/login@4.13%2Bdfsg1-1%2Bb1?arch=amd64&distro=debian-12.4&epoch=1',
      },
    );
    assert.ok(report.packages.some((p) => p.name === 'adduser' && p.version === '3.134'));
    assert.equal(report.vulnerabilities.length, 45);
    const counts: Record<string, number> = {};
    for (const v of report.vulnerabilities) counts[v.severity] = (counts[v.severity] ?? 0) + 1;
    assert.deepEqual(counts, { low: 18, medium: 16, high: 10, critical: 1 });
    assert.deepEqual(
      report.vulnerabilities.find((v) => v.id === 'CVE-2023-45853'),
      {
        id: 'CVE-2023-45853',
        aliases: [],
        packageName: 'zlib1g',
        packageVersion: '1:1.2.13.dfsg-1',
        fixedVersions: [],
        severity: 'critical',
        scannerSeverity: 'CRITICAL',
        dataSource: {
          scanner: 'trivy',
          feed: 'debian',
          url: 'https://salsa.debian.org/security-tracker-team/security-tracker',
        },
        cvss: { score: 9.8, version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
        publishedAt: '2023-10-14T02:15:09.000Z',
      },
    );
    const libssl = report.vulnerabilities.find(
      (v) => v.id === 'CVE-2024-0727' && v.packageName === 'libssl3',
    );
    assert.deepEqual(libssl?.fixedVersions, ['3.0.13-1~deb12u1']);
    // No NVD score for the wall(1) escape injection: CVSS stays null rather than invented.
    assert.equal(report.vulnerabilities.find((v) => v.id === 'CVE-2024-28085')?.cvss, null);
  });

  test('storefront-api:3.8.0 (no package list): registry host, nanosecond scan time, Maven packages', () => {
    const report = read(sample('storefront-api-3.8.0.trivy.json'));
    assert.deepEqual(report.scanner, { name: 'trivy', version: '0.52.1' });
    assert.equal(report.scannedAt, '2024-11-19T14:45:09.123Z');
    assert.equal(report.image.registry, 'ghcr.io');
    assert.equal(report.image.repository, 'ghcr.io/acme/storefront-api');
    assert.equal(report.image.tag, '3.8.0');
    assert.equal(
      report.image.digest,
      'sha256:6cc12ad82a3400176d04a9047b31cd0321f24757a852d3a15f89e9624d390f2a',
    );
    // The packages are those the vulnerabilities name.
    assert.deepEqual(report.packages.map((p) => `${p.type} ${p.name}@${p.version}`).sort(), [
      'apk busybox-binsh@1.36.1-r15',
      'apk busybox@1.36.1-r15',
      'apk libcrypto3@3.1.4-r5',
      'apk libssl3@3.1.4-r5',
      'apk ssl_client@1.36.1-r15',
      'maven com.fasterxml.jackson.core:jackson-databind@2.13.2',
      'maven org.apache.logging.log4j:log4j-core@2.14.1',
      'maven org.springframework:spring-beans@5.3.15',
      'maven org.springframework:spring-web@5.3.15',
      'maven org.yaml:snakeyaml@1.30',
    ]);
    // log4j-core is reported twice for CVE-2021-44228 (app.jar and a plugin jar): counted once.
    assert.equal(report.vulnerabilities.filter((v) => v.id === 'CVE-2021-44228').length, 1);
    assert.equal(report.vulnerabilities.length, 17);
    const log4shell = report.vulnerabilities.find((v) => v.id === 'CVE-2021-44228');
    assert.deepEqual(log4shell?.fixedVersions, ['2.15.0', '2.12.2']);
    assert.equal(log4shell?.dataSource.feed, 'ghsa');
    assert.deepEqual(report.vulnerabilities.find((v) => v.id === 'CVE-2021-45105')?.fixedVersions, [
      '2.17.0',
      '2.12.3',
      '2.3.1',
    ]);
  });
});

describe('Trivy reader refusals name the format and the field', () => {
  const cases: Array<[string, (doc: Doc) => void, Partial<ScanReadFailure>]> = [
    [
      'a vulnerability without PkgName',
      (doc) => delete doc.Results[0].Vulnerabilities[3].PkgName,
      {
        field: 'Results[0].Vulnerabilities[3].PkgName',
        code: 'required',
        message: 'recognised Trivy JSON, but Results[0].Vulnerabilities[3].PkgName is missing',
      },
    ],
    [
      'InstalledVersion of the wrong type',
      (doc) => {
        doc.Results[0].Vulnerabilities[0].InstalledVersion = 2;
      },
      {
        field: 'Results[0].Vulnerabilities[0].InstalledVersion',
        code: 'invalid_type',
        message:
          'recognised Trivy JSON, but Results[0].Vulnerabilities[0].InstalledVersion is a number, expected a string',
      },
    ],
    [
      'an empty VulnerabilityID',
      (doc) => {
        doc.Results[0].Vulnerabilities[1].VulnerabilityID = ' ';
      },
      { field: 'Results[0].Vulnerabilities[1].VulnerabilityID', code: 'required' },
    ],
    [
      'a severity outside Trivy vocabulary',
      (doc) => {
        doc.Results[0].Vulnerabilities[2].Severity = 'SEVERE';
      },
      {
        field: 'Results[0].Vulnerabilities[2].Severity',
        code: 'invalid_value',
        message:
          'recognised Trivy JSON, but Results[0].Vulnerabilities[2].Severity is "SEVERE", expected one of CRITICAL, HIGH, MEDIUM, LOW, UNKNOWN',
      },
    ],
    [
      'a missing severity',
      (doc) => delete doc.Results[0].Vulnerabilities[2].Severity,
      { field: 'Results[0].Vulnerabilities[2].Severity', code: 'required' },
    ],
    ['schema version 1', (doc) => (doc.SchemaVersion = 1), { field: 'SchemaVersion', code: 'invalid_value' }],
    [
      'a filesystem scan',
      (doc) => (doc.ArtifactType = 'filesystem'),
      {
        field: 'ArtifactType',
        code: 'invalid_value',
        message:
          'recognised Trivy JSON, but ArtifactType is "filesystem"; only container_image scans describe an image',
      },
    ],
    ['no ArtifactName', (doc) => delete doc.ArtifactName, { field: 'ArtifactName', code: 'required' }],
    ['Results not a list', (doc) => (doc.Results = {}), { field: 'Results', code: 'invalid_type' }],
    [
      'a result that is not an object',
      (doc) => (doc.Results = [7]),
      { field: 'Results[0]', code: 'invalid_type' },
    ],
    [
      'a malformed repo digest',
      (doc) => (doc.Metadata.RepoDigests = ['nginx@sha256:1234']),
      { field: 'Metadata.RepoDigests[0]', code: 'invalid_format' },
    ],
    [
      'a malformed image id',
      (doc) => (doc.Metadata.ImageID = 'abc'),
      { field: 'Metadata.ImageID', code: 'invalid_format' },
    ],
    [
      'a published date that is not a date',
      (doc) => {
        doc.Results[0].Vulnerabilities[0].PublishedDate = '2024-02-30T00:00:00Z';
      },
      { field: 'Results[0].Vulnerabilities[0].PublishedDate', code: 'invalid_format' },
    ],
    [
      'a CVSS score above 10',
      (doc) => {
        doc.Results[0].Vulnerabilities[0].CVSS.nvd.V3Score = 11;
      },
      { field: 'Results[0].Vulnerabilities[0].CVSS.nvd.V3Score', code: 'out_of_range' },
    ],
    [
      'a listed package without a name',
      (doc) => delete doc.Results[0].Packages[4].Name,
      { field: 'Results[0].Packages[4].Name', code: 'required' },
    ],
    [
      'a bad scan time',
      (doc) => (doc.CreatedAt = 'yesterday'),
      { field: 'CreatedAt', code: 'invalid_format' },
    ],
  ];
  for (const [name, edit, expected] of cases) {
    test(name, () => {
      const error = refusal(nginxWith(edit));
      assert.equal(error.format, 'trivy');
      assert.ok(error.message.startsWith('recognised Trivy JSON, but '), error.message);
      assert.ok(error.field && error.message.includes(error.field), `${error.message} names ${error.field}`);
      for (const [key, value] of Object.entries(expected)) {
        assert.equal(error[key as keyof ScanReadFailure], value, key);
      }
    });
  }
});

describe('Trivy reader tolerates what it does not use', () => {
  test('unknown fields, a null vulnerability list, no Results and version-less packages', () => {
    const doc = nginxWith((d) => {
      d.SomethingNew = { nested: [1, 2] };
      d.Results[0].Vulnerabilities[0].ExtraField = true;
      d.Results.push({ Target: 'secrets', Class: 'secret', Secrets: [{ RuleID: 'aws-access-key-id' }] });
      d.Results.push({ Target: 'Node.js', Class: 'lang-pkgs', Type: 'node-pkg', Vulnerabilities: null });
      d.Results[0].Packages.push({ Name: 'no-version-pkg' });
    });
    const report = read(doc);
    assert.equal(report.vulnerabilities.length, 45);
    assert.equal(report.packages.length, 30);
    const clean = read({ SchemaVersion: 2, ArtifactName: 'busybox:1.36', ArtifactType: 'container_image' });
    assert.deepEqual([clean.packages, clean.vulnerabilities], [[], []]);
  });

  test('the score of the source Trivy took the severity from wins over NVD; CVSS 4.0 over 3.x', () => {
    const vulnerability = {
      VulnerabilityID: 'CVE-2024-0001',
      PkgName: 'pkg',
      InstalledVersion: '1',
      Severity: 'HIGH',
      SeveritySource: 'redhat',
      CVSS: {
        nvd: { V3Score: 9.8, V3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
        redhat: { V3Score: 7.5, V3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', V2Score: 5 },
      },
    };
    const doc = {
      SchemaVersion: 2,
      ArtifactName: 'alpine:3.19',
      Results: [{ Type: 'alpine', Vulnerabilities: [vulnerability] }],
    };
    assert.deepEqual(read(doc).vulnerabilities[0]?.cvss, {
      score: 7.5,
      version: '3.0',
      vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
    });
    // The severity source without a score: NVD's.
    vulnerability.SeveritySource = 'ubuntu';
    assert.equal(read(doc).vulnerabilities[0]?.cvss?.score, 9.8);
    vulnerability.SeveritySource = 'redhat';
    (vulnerability.CVSS.redhat as Record<string, unknown>).V40Score = 9.3;
    assert.equal(read(doc).vulnerabilities[0]?.cvss?.score, 9.3);
    assert.equal(read(doc).vulnerabilities[0]?.cvss?.version, '4.0');
  });
});
