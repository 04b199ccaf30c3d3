import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { EpssScore } from './epss.js';
import { FeedFormatError } from './feed-format-error.js';
import { openFeed, openFeedFile } from './read-feed.js';

const SAMPLE = new URL('../../../sample/feeds/epss.csv', import.meta.url);
const HEAD = '#model_version:v2023.03.01,score_date:2024-07-01T00:00:00+0000\ncve,epss,percentile\n';

async function scores(source: Parameters<typeof openFeed>[0], batchSize?: number): Promise<EpssScore[][]> {
  const feed = await openFeed(source);
  assert.equal(feed.kind, 'epss');
  const batches: EpssScore[][] = [];
  if (feed.kind === 'epss') for await (const batch of feed.batches(batchSize)) batches.push(batch);
  return batches;
}

async function rejection(source: Parameters<typeof openFeed>[0]): Promise<FeedFormatError> {
  try {
    await scores(source);
  } catch (error) {
    assert.ok(error instanceof FeedFormatError, String(error));
    return error;
  }
  assert.fail('expected the feed to be refused');
}

describe('EPSS feed', () => {
  test('the sample, plain and gzip, gives the same metadata and rows', async () => {
    const plain = await openFeedFile(SAMPLE.pathname);
    const gzip = await openFeedFile(`${SAMPLE.pathname}.gz`);
    assert.ok(plain.kind === 'epss' && gzip.kind === 'epss');
    assert.deepEqual([plain.compressed, gzip.compressed], [false, true]);
    for (const feed of [plain, gzip]) {
      assert.equal(feed.modelVersion, 'v2023.03.01');
      assert.equal(feed.scoreDate, '2024-07-01T00:00:00.000Z');
    }
    const rows = async (feed: typeof plain) => {
      const all: EpssScore[] = [];
      if (feed.kind === 'epss') for await (const batch of feed.batches()) all.push(...batch);
      return all;
    };
    const plainRows = await rows(plain);
    assert.equal(plainRows.length, 57);
    assert.deepEqual(
      plainRows.find((row) => row.cve === 'CVE-2021-44228'),
      { cve: 'CVE-2021-44228', epss: 0.97565, percentile: 0.99996 },
    );
    assert.deepEqual(await rows(gzip), plainRows);
  });

  test('rows come in batches of the requested size, read as a stream', async () => {
    const body = Array.from({ length: 2500 }, (_, i) => `CVE-2024-${10000 + i},0.0${i % 10},0.5`).join('\n');
    // One byte at a time: line and field boundaries fall anywhere in the chunks.
    const bytes = Buffer.from(`${HEAD}${body}\n`);
    const chunks = Readable.from(
      (function* () {
        for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
      })(),
    );
    const batches = await scores(chunks, 1000);
    assert.deepEqual(
      batches.map((batch) => batch.length),
      [1000, 1000, 500],
    );
    assert.equal(batches[2]?.at(-1)?.cve, 'CVE-2024-12499');
  });

  test('without the comment line, with CRLF, a BOM, quoted fields, extra columns in another order', async () => {
    const batches = await scores(
      Buffer.from('\uFEFFpercentile,cve,epss,note\r\n"0.9","cve-2024-0001",0.25,x\r\n'),
    );
    assert.deepEqual(batches, [[{ cve: 'CVE-2024-0001', epss: 0.25, percentile: 0.9 }]]);
    const feed = await openFeed(Buffer.from('cve,epss,percentile\nCVE-2024-0001,0.1,0.2\n'));
    assert.ok(feed.kind === 'epss' && feed.modelVersion === null && feed.scoreDate === null);
    await feed.close();
  });

  test('a CVE twice in one batch is one row, the later one', async () => {
    const batches = await scores(
      Buffer.from(`${HEAD}CVE-2024-0001,0.1,0.2\nCVE-2024-0002,0.3,0.4\nCVE-2024-0001,0.5,0.6\n`),
    );
    assert.deepEqual(batches, [
      [
        { cve: 'CVE-2024-0002', epss: 0.3, percentile: 0.4 },
        { cve: 'CVE-2024-0001', epss: 0.5, percentile: 0.6 },
      ],
    ]);
  });

  const bad: Array<[string, string, number | null, RegExp]> = [
    [
      'an epss above 1',
      `${HEAD}CVE-2024-0001,0.1,0.2\nCVE-2024-0002,1.7,0.2\n`,
      4,
      /line 4: epss is "1.7", expected a number from 0 to 1/,
    ],
    ['a negative percentile', `${HEAD}CVE-2024-0001,0.1,-0.2\n`, 3, /line 3: percentile is "-0.2"/],
    ['a score that is not a number', `${HEAD}CVE-2024-0001,high,0.2\n`, 3, /line 3: epss is "high"/],
    ['an empty score', `${HEAD}CVE-2024-0001,,0.2\n`, 3, /line 3: epss is ""/],
    [
      'a malformed CVE id',
      `${HEAD}CVE-24-1,0.1,0.2\n`,
      3,
      /line 3: cve is "CVE-24-1", expected an id such as CVE-2024-1234/,
    ],
    [
      'a missing field',
      `${HEAD}CVE-2024-0001,0.1,0.2\n\nCVE-2024-0002,0.1\n`,
      5,
      /line 5: has 2 fields, the header has 3/,
    ],
    ['an unclosed quote', `${HEAD}CVE-2024-0001,"0.1,0.2\n`, 3, /line 3: Quote Not Closed/],
    [
      'a wrong header',
      '#model_version:v1\ncve,score\nCVE-2024-0001,0.1\n',
      2,
      /line 2: the header is "cve,score", expected the columns cve,epss,percentile/,
    ],
    [
      'a bad score date',
      '#model_version:v1,score_date:2024-13-45\ncve,epss,percentile\n',
      1,
      /line 1: score_date "2024-13-45" is not a date/,
    ],
    ['no rows', HEAD, null, /there are no score rows after the header/],
    [
      'only the comment line',
      '#model_version:v2023.03.01\n',
      null,
      /the header line cve,epss,percentile is missing/,
    ],
  ];
  for (const [name, text, line, message] of bad) {
    test(`refused: ${name} (with its line number)`, async () => {
      const error = await rejection(Buffer.from(text));
      assert.equal(error.format, 'epss');
      assert.equal(error.line, line);
      assert.match(error.message, /^recognised FIRST EPSS CSV, but /);
      assert.match(error.message, message);
    });
  }

  test('refused: truncated gzip, after the rows already read', async () => {
    const csv = `${HEAD}${Array.from({ length: 3000 }, (_, i) => `CVE-2024-${10000 + i},0.1,0.2`).join('\n')}\n`;
    const gzip = gzipSync(Buffer.from(csv));
    const error = await rejection(gzip.subarray(0, Math.floor(gzip.length * 0.6)));
    assert.equal(error.format, 'epss');
    assert.match(error.message, /the gzip data breaks off after line \d+: unexpected end of file/);
  });

  test('refused: corrupt gzip before anything could be read', async () => {
    const gzip = gzipSync(Buffer.from(`${HEAD}CVE-2024-0001,0.1,0.2\n`));
    gzip.fill(0x55, 10, 30);
    await assert.rejects(openFeed(gzip), (error: unknown) => {
      assert.ok(error instanceof FeedFormatError);
      assert.match(error.message, /^the feed is gzip but cannot be decompressed: /);
      return true;
    });
  });
});
