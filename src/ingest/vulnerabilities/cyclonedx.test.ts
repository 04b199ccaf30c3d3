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
  assert.equal(result.ok, false, 'expected the BOM to be refused');
  return (result as { error: ScanReadFailure }).error;
};
const DIGEST = `sha256:${'c'.repeat(64)}`;

/** A small CycloneDX 1.4 BOM (tools as a list) with the given components and vulnerabilities. */
const bom = (components: Doc[], vulnerabilities?: Doc[]): Doc => ({
  bomFormat: 'CycloneDX',
  specVersion: '1.4',
  version: 1,
  metadata: {
    timestamp: '2024-05-01T12:00:00Z',
    tools: [{ vendor: 'example', name: 'Scanner', version: '2.1' }],
    component: {
      type: 'container',
      name: 'registry.example.com:5000/shop/api',
      version: '2.3.1',
      purl: `pkg:oci/api@${encodeURIComponent(DIGEST)}`,
    },
  },
  components,
  ...(vulnerabilities ? { vulnerabilities } : {}),
});
const library = (name: string, version: string, extra: Doc = {}): Doc => ({
  type: 'library',
  'bom-ref': `ref-${name}`,
  name,
  version,
  ...extra,
});
const vulnerability = (id: string, refs: string[], extra: Doc = {}): Doc => ({
  id,
  affects: refs.map((ref) => ({ ref })),
  ...extra,
});

describe('CycloneDX reader on the samples', () => {
  test('postgres:16.4 from Trivy (1.5): image from Trivy properties, packages, ratings', () => {
    const report = read(sample('postgres-16.4.cdx.json'));
    assert.equal(report.format, 'cyclonedx');
    assert.deepEqual(report.scanner, { name: 'trivy', version: '0.52.2' });
    assert.equal(report.scannedAt, '2024-11-18T06:30:00.000Z');
    assert.equal(report.image.repository, 'docker.io/library/postgres');
    assert.equal(report.image.tag, '16.4');
    assert.equal(
      report.image.digest,
      'sha256:061ce8b4d3a3155422e265364089478d7ba6876685cb79829d7f2cd4298dc5cb',
    );
    assert.equal(
      report.image.imageId,
      'sha256:287a50d19012ee06f14026b13cb2b9a4226f9b499b57f5cfb29f910262217839',
    );
    // 17 Debian packages and 2 Go modules; the OS component and the version-less gosu aggregate are not packages.
    assert.equal(report.packages.length, 19);
    assert.ok(!report.packages.some((p) => p.name === 'debian' || p.name === 'usr/local/bin/gosu'));
    assert.equal(report.packages.find((p) => p.name === 'zlib1g')?.version, '1:1.2.13.dfsg-1');
    // One entry per affected package: CVE-2024-0727 affects libssl3 and openssl.
    assert.equal(report.vulnerabilities.length, 27);
    assert.deepEqual(
      report.vulnerabilities.filter((v) => v.id === 'CVE-2024-0727').map((v) => v.packageName),
      ['libssl3', 'openssl'],
    );
    const byId = (id: string) => report.vulnerabilities.find((v) => v.id === id);
    // The feed's own rating decides (Debian medium), not Red Hat's low nor NVD's.
    assert.equal(byId('CVE-2024-0727')?.severity, 'medium');
    assert.equal(byId('CVE-2024-37371')?.severity, 'critical');
    assert.deepEqual(byId('CVE-2024-37371')?.fixedVersions, ['1.20.1-2+deb12u2']);
    assert.deepEqual(byId('CVE-2023-24538')?.fixedVersions, ['1.19.8', '1.20.3']);
    assert.deepEqual(byId('CVE-2023-45853')?.fixedVersions, []);
    assert.deepEqual(byId('CVE-2023-45853')?.cvss, {
      score: 9.8,
      version: '3.1',
      vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    });
    assert.deepEqual(byId('CVE-2024-21626')?.dataSource, {
      scanner: 'trivy',
      feed: 'ghsa',
      url: 'https://github.com/advisories?query=type%3Areviewed+ecosystem%3Ago',
    });
    assert.equal(byId('CVE-2010-4756')?.publishedAt, '2011-03-02T20:00:01.000Z');
  });

  test('busybox:latest from Syft (1.6): a BOM without vulnerabilities gives packages only', () => {
    const report = read(sample('busybox-latest.cdx.json'));
    assert.deepEqual(report.scanner, { name: 'syft', version: '1.8.0' });
    assert.equal(report.image.reference, 'busybox:latest');
    assert.equal(report.image.tag, 'latest');
    // Syft writes the manifest digest as the component version.
    assert.equal(
      report.image.digest,
      'sha256:bfffaba02b320530d15f521d40bc859c68989ff58f3dbf0335800db19a661839',
    );
    assert.deepEqual(report.packages, [
      { name: 'busybox', version: '1.36.1', type: 'generic', purl: 'pkg:generic/busybox@1.36.1' },
    ]);
    assert.deepEqual(report.vulnerabilities, []);
  });
});

describe('CycloneDX components and references', () => {
  test('nested components are packages too; group joins the name; tools as a 1.4 list', () => {
    const report = read(
      bom([
        library('app', '2.3.1', {
          type: 'application',
          components: [
            library('log4j-core', '2.14.1', {
              group: 'org.apache.logging.log4j',
              purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
            }),
            library('core', '7.24.0', {
              group: '@babel',
              purl: 'pkg:npm/%40babel/core@7.24.0',
              components: [library('deep', '1.0.0')],
            }),
          ],
        }),
        { type: 'file', name: 'app.jar', version: '1' },
        library('no-version', '', { version: undefined }),
      ]),
    );
    assert.deepEqual(report.scanner, { name: 'scanner', version: '2.1' });
    assert.deepEqual(
      report.packages.map((p) => `${p.name}@${p.version} ${p.type}`),
      [
        'app@2.3.1 null',
        'org.apache.logging.log4j:log4j-core@2.14.1 maven',
        '@babel/core@7.24.0 npm',
        'deep@1.0.0 null',
      ],
    );
    assert.equal(report.image.repository, 'registry.example.com:5000/shop/api');
    assert.equal(report.image.tag, '2.3.1');
    assert.equal(report.image.digest, DIGEST);
  });

  test('affects by bom-ref, by BOM-Link into another BOM, and by bare purl', () => {
    const report = read(
      bom(
        [library('libssl3', '3.0.11-1~deb12u2')],
        [
          vulnerability('CVE-2024-0727', ['ref-libssl3']),
          vulnerability('CVE-2023-45853', [
            'urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#pkg:deb/debian/zlib1g@1.2.13.dfsg-1?arch=amd64&epoch=1',
          ]),
          vulnerability('CVE-2019-18276', ['urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#ref-libssl3']),
          vulnerability('CVE-2021-44228', ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1']),
          vulnerability('CVE-2024-21626', ['pkg:golang/github.com/opencontainers/runc@v1.1.5']),
          vulnerability('CVE-2024-21538', ['pkg:npm/%40babel/core@7.24.0']),
        ],
      ),
    );
    assert.deepEqual(
      report.vulnerabilities.map((v) => `${v.id} ${v.packageName}@${v.packageVersion}`),
      [
        'CVE-2024-0727 libssl3@3.0.11-1~deb12u2',
        'CVE-2023-45853 zlib1g@1.2.13.dfsg-1',
        'CVE-2019-18276 libssl3@3.0.11-1~deb12u2',
        'CVE-2021-44228 org.apache.logging.log4j:log4j-core@2.14.1',
        'CVE-2024-21626 github.com/opencontainers/runc@v1.1.5',
        'CVE-2024-21538 @babel/core@7.24.0',
      ],
    );
    // A package only a vulnerability names is listed as a package as well.
    assert.ok(report.packages.some((p) => p.name === 'zlib1g' && p.type === 'deb'));
  });

  test('fixed versions: unaffected versions, vers: lower bounds (Grype) and Trivy recommendations', () => {
    const report = read(
      bom(
        [library('package-1', '1.1.1'), library('package-2', '2.2.2')],
        [
          {
            id: 'CVE-1999-0001',
            affects: [
              {
                ref: 'ref-package-1',
                versions: [
                  { version: '1.1.1', status: 'affected' },
                  { range: 'vers:generic/>=1.2.1', status: 'unaffected' },
                  { range: 'vers:generic/>=2.1.3|<3', status: 'unaffected' },
                  { version: '3.4.0', status: 'unaffected' },
                ],
              },
            ],
          },
          vulnerability('CVE-1999-0002', ['ref-package-2'], {
            recommendation: 'Upgrade package-2 to version 2.2.3, 3.0.1',
          }),
        ],
      ),
    );
    assert.deepEqual(
      report.vulnerabilities.map((v) => v.fixedVersions),
      [
        ['1.2.1', '2.1.3', '3.4.0'],
        ['2.2.3', '3.0.1'],
      ],
    );
  });
});

describe('CycloneDX reader refusals name the format and the field', () => {
  const base = () =>
    bom(
      [library('p', '1'), library('q', '2')],
      [vulnerability('CVE-2024-1', ['ref-p'], { ratings: [{ severity: 'high' }] })],
    );
  const cases: Array<[string, (doc: Doc) => void, string, string]> = [
    ['spec version 1.3', (doc) => (doc.specVersion = '1.3'), 'specVersion', 'invalid_value'],
    ['no spec version', (doc) => delete doc.specVersion, 'specVersion', 'required'],
    ['no metadata.component', (doc) => delete doc.metadata.component, 'metadata.component', 'required'],
    ['a component without name', (doc) => delete doc.components[1].name, 'components[1].name', 'required'],
    [
      'a nested component without name',
      (doc) => (doc.components[0].components = [{ type: 'library' }]),
      'components[0].components[0].name',
      'required',
    ],
    [
      'a repeated bom-ref',
      (doc) => (doc.components[1]['bom-ref'] = 'ref-p'),
      'components[1].bom-ref',
      'invalid_value',
    ],
    [
      'a vulnerability without affects',
      (doc) => delete doc.vulnerabilities[0].affects,
      'vulnerabilities[0].affects',
      'required',
    ],
    [
      'a ref naming nothing',
      (doc) => (doc.vulnerabilities[0].affects[0].ref = 'ref-missing'),
      'vulnerabilities[0].affects[0].ref',
      'invalid_value',
    ],
    [
      'a ref to a component without version',
      (doc) => delete doc.components[0].version,
      'vulnerabilities[0].affects[0].ref',
      'invalid_value',
    ],
    [
      'a severity outside the vocabulary',
      (doc) => (doc.vulnerabilities[0].ratings[0].severity = 'severe'),
      'vulnerabilities[0].ratings[0].severity',
      'invalid_value',
    ],
    [
      'a CVSS score above 10',
      (doc) => (doc.vulnerabilities[0].ratings = [{ method: 'CVSSv31', score: 12 }]),
      'vulnerabilities[0].ratings[0].score',
      'out_of_range',
    ],
    [
      'a bad published date',
      (doc) => (doc.vulnerabilities[0].published = 'last week'),
      'vulnerabilities[0].published',
      'invalid_format',
    ],
    ['components not a list', (doc) => (doc.components = 'none'), 'components', 'invalid_type'],
    ['no image name', (doc) => delete doc.metadata.component.name, 'metadata.component.name', 'required'],
  ];
  for (const [name, edit, field, code] of cases) {
    test(name, () => {
      const doc = base();
      edit(doc);
      const error = refusal(doc);
      assert.equal(error.format, 'cyclonedx');
      assert.equal(error.field, field);
      assert.equal(error.code, code);
      assert.ok(error.message.startsWith(`recognised CycloneDX JSON, but ${field} `), error.message);
    });
  }
});
