import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { readScanReport } from '../vulnerabilities/read-scan-report.js';
import { FeedFormatError } from './feed-format-error.js';
import { openFeed } from './read-feed.js';

const file = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url));

async function refused(source: Buffer): Promise<FeedFormatError> {
  try {
    const feed = await openFeed(source);
    if (feed.kind === 'epss') for await (const _ of feed.batches()) void _;
  } catch (error) {
    assert.ok(error instanceof FeedFormatError, String(error));
    return error;
  }
  assert.fail('expected the feed to be refused');
}

describe('feed detection from content', () => {
  test('EPSS and KEV are told apart by content, not by name, gzip or not', async () => {
    for (const [bytes, kind] of [
      [file('sample/feeds/epss.csv'), 'epss'],
      [file('sample/feeds/epss.csv.gz'), 'epss'],
      [gzipSync(file('sample/feeds/kev.json')), 'kev'],
      [file('sample/feeds/kev.json'), 'kev'],
      [Buffer.from(`\n  ${file('sample/feeds/kev.json')}`), 'kev'],
    ] as const) {
      const feed = await openFeed(bytes);
      assert.equal(feed.kind, kind);
      if (feed.kind === 'epss') await feed.close();
    }
  });

  test('a scan report, other JSON, other text, an empty file: not a recognised feed', async () => {
    for (const bytes of [
      file('sample/scans/postgres-16.4.cdx.json'),
      file('sample/scans/nginx-1.27.2.trivy.json'),
      Buffer.from('{"vulnerabilities": [{"id": "CVE-2024-0001"}]}'),
      Buffer.from('# Release notes\n\nNothing here.\n'),
      Buffer.from('id,score\nCVE-2024-0001,0.1\n'),
      Buffer.from(''),
      gzipSync(Buffer.from('hello')),
    ]) {
      const error = await refused(bytes);
      assert.equal(error.format, null);
      assert.match(error.message, /not a recognised feed: expected FIRST EPSS CSV .* or CISA KEV JSON/);
    }
  });

  test('JSON that does not parse says so', async () => {
    const error = await refused(Buffer.from('{"vulnerabilities": [}'));
    assert.equal(error.format, null);
    assert.match(error.message, /^the feed starts like JSON but is not valid JSON: /);
  });
});

describe('the sample feeds and the sample scans', () => {
  test('EPSS scores every CVE of the sample scans; KEV lists four of them', async () => {
    const cves = new Set<string>();
    for (const name of [
      'nginx-1.27.2.trivy.json',
      'storefront-api-3.8.0.trivy.json',
      'redis-7.4.1-alpine.grype.json',
      'postgres-16.4.cdx.json',
    ]) {
      const result = readScanReport(JSON.parse(file(`sample/scans/${name}`).toString('utf8')));
      assert.ok(result.ok);
      for (const v of result.report.vulnerabilities)
        for (const id of [v.id, ...v.aliases]) if (id.startsWith('CVE-')) cves.add(id);
    }
    const epss = await openFeed(file('sample/feeds/epss.csv'));
    const scored = new Set<string>();
    if (epss.kind === 'epss')
      for await (const batch of epss.batches()) for (const row of batch) scored.add(row.cve);
    assert.deepEqual(
      [...cves].filter((cve) => !scored.has(cve)),
      [],
    );
    const kev = await openFeed(file('sample/feeds/kev.json'));
    const listed = kev.kind === 'kev' ? kev.catalog.entries.map((entry) => entry.cveId) : [];
    assert.deepEqual(listed.filter((cve) => cves.has(cve)).sort(), [
      'CVE-2021-44228',
      'CVE-2021-45046',
      'CVE-2022-22965',
      'CVE-2023-44487',
    ]);
  });
});
