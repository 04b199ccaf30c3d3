import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { FeedFormatError } from './feed-format-error.js';
import { openFeed, openFeedFile } from './read-feed.js';

const SAMPLE = new URL('../../../sample/feeds/kev.json', import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: tests reshape the sample freely
const sample = (): any => JSON.parse(readFileSync(SAMPLE, 'utf8'));

async function catalog(source: Parameters<typeof openFeed>[0]) {
  const feed = await openFeed(source);
  assert.equal(feed.kind, 'kev');
  return feed.kind === 'kev' ? feed.catalog : assert.fail('not KEV');
}

async function rejection(doc: unknown): Promise<FeedFormatError> {
  try {
    await catalog(Buffer.from(JSON.stringify(doc)));
  } catch (error) {
    assert.ok(error instanceof FeedFormatError, String(error));
    return error;
  }
  assert.fail('expected the catalog to be refused');
}

describe('CISA KEV feed', () => {
  test('the sample: catalog fields and every entry field kept', async () => {
    const feed = await openFeedFile(SAMPLE.pathname);
    assert.ok(feed.kind === 'kev' && !feed.compressed);
    const { catalog: kev } = feed;
    assert.equal(kev.title, 'CISA Catalog of Known Exploited Vulnerabilities');
    assert.equal(kev.catalogVersion, '2024.07.01');
    assert.equal(kev.dateReleased, '2024-07-01T15:00:41.152Z');
    assert.equal(kev.entries.length, 7);
    assert.deepEqual(
      kev.entries.find((entry) => entry.cveId === 'CVE-2021-44228'),
      {
        cveId: 'CVE-2021-44228',
        vendorProject: 'Apache',
        product: 'Log4j2',
        vulnerabilityName: 'Apache Log4j2 Remote Code Execution Vulnerability',
        dateAdded: '2021-12-10',
        shortDescription:
          'Apache Log4j2 contains a vulnerability where JNDI features do not protect against attacker-controlled JNDI-related endpoints, allowing for remote code execution.',
        requiredAction:
          'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
        dueDate: '2021-12-24',
        knownRansomwareCampaignUse: 'Known',
        notes:
          'https://logging.apache.org/log4j/2.x/security.html; https://nvd.nist.gov/vuln/detail/CVE-2021-44228',
        cwes: ['CWE-20', 'CWE-400', 'CWE-502'],
      },
    );
  });

  test('gzip too, detected from the bytes', async () => {
    const feed = await openFeed(gzipSync(readFileSync(SAMPLE)));
    assert.ok(feed.kind === 'kev' && feed.compressed);
    assert.equal(feed.catalog.entries.length, 7);
  });

  test('only cveID and dateAdded are required; a repeated CVE keeps its first entry; ids upper-cased', async () => {
    const kev = await catalog(
      Buffer.from(
        JSON.stringify({
          vulnerabilities: [
            { cveID: 'cve-2024-0001', dateAdded: '2024-01-02', extra: { ignored: true } },
            { cveID: 'CVE-2024-0001', dateAdded: '2024-02-03' },
          ],
        }),
      ),
    );
    assert.deepEqual(kev.entries, [
      {
        cveId: 'CVE-2024-0001',
        vendorProject: null,
        product: null,
        vulnerabilityName: null,
        dateAdded: '2024-01-02',
        shortDescription: null,
        requiredAction: null,
        dueDate: null,
        knownRansomwareCampaignUse: null,
        notes: null,
        cwes: [],
      },
    ]);
    assert.equal(kev.catalogVersion, null);
  });

  const cases: Array<[string, (doc: ReturnType<typeof sample>) => void, string, RegExp]> = [
    [
      'an entry without cveID',
      (doc) => delete doc.vulnerabilities[2].cveID,
      'vulnerabilities[2].cveID',
      /is missing/,
    ],
    [
      'a malformed cveID',
      (doc) => (doc.vulnerabilities[0].cveID = 'CVE-XX'),
      'vulnerabilities[0].cveID',
      /is "CVE-XX", expected/,
    ],
    [
      'no dateAdded',
      (doc) => delete doc.vulnerabilities[1].dateAdded,
      'vulnerabilities[1].dateAdded',
      /is missing/,
    ],
    [
      'an impossible dueDate',
      (doc) => (doc.vulnerabilities[3].dueDate = '2024-02-30'),
      'vulnerabilities[3].dueDate',
      /expected a date YYYY-MM-DD/,
    ],
    [
      'a dateAdded with a time',
      (doc) => (doc.vulnerabilities[3].dateAdded = '2024-02-03T00:00:00Z'),
      'vulnerabilities[3].dateAdded',
      /expected a date/,
    ],
    [
      'a number where text belongs',
      (doc) => (doc.vulnerabilities[4].product = 7),
      'vulnerabilities[4].product',
      /is a number, expected a string/,
    ],
    [
      'cwes not a list of strings',
      (doc) => (doc.vulnerabilities[0].cwes = [79]),
      'vulnerabilities[0].cwes',
      /not a list of strings/,
    ],
    [
      'an entry that is not an object',
      (doc) => (doc.vulnerabilities[5] = 'CVE-2024-0001'),
      'vulnerabilities[5]',
      /not an object/,
    ],
    [
      'a bad dateReleased',
      (doc) => (doc.dateReleased = 'July'),
      'dateReleased',
      /expected an RFC 3339 timestamp/,
    ],
    ['no entries', (doc) => (doc.vulnerabilities = []), 'vulnerabilities', /is empty/],
  ];
  for (const [name, edit, field, message] of cases) {
    test(`refused: ${name} (with its path)`, async () => {
      const doc = sample();
      edit(doc);
      const error = await rejection(doc);
      assert.equal(error.format, 'kev');
      assert.equal(error.field, field);
      assert.ok(error.message.startsWith(`recognised CISA KEV JSON, but ${field} `), error.message);
      assert.match(error.message, message);
    });
  }
});
