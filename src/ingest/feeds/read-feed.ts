/**
 * The entry point of feed imports (`posture feeds import FILE...` and the admin endpoint): opens
 * a feed file, gzip or not, and tells from its content which feed it is.
 *
 * @example
 *   const feed = await openFeedFile('epss_scores-2024-07-01.csv.gz');
 *   if (feed.kind === 'epss') for await (const batch of feed.batches()) await upsertScores(tx, batch);
 *   else await replaceKev(tx, feed.catalog.entries);
 */
import { createReadStream } from 'node:fs';
import { type EpssFeedInfo, type EpssScore, parseEpssComment, readEpssBatches } from './epss.js';
import { FeedFormatError } from './feed-format-error.js';
import { type FeedSource, isZlibError, openFeedBytes, type PeekableBytes } from './feed-input.js';
import { type KevCatalog, looksLikeKev, readKevCatalog } from './kev.js';

export type Feed =
  | ({
      kind: 'epss';
      compressed: boolean;
      /** The scores, streamed; can be read once. */
      batches(batchSize?: number): AsyncGenerator<EpssScore[]>;
      /** Releases the file when the rows will not be read. */
      close(): Promise<void>;
    } & EpssFeedInfo)
  | { kind: 'kev'; compressed: boolean; catalog: KevCatalog };

/** A KEV catalog is a few MB; anything far larger is not one. */
export const MAX_JSON_FEED_BYTES = 64 * 1024 * 1024;

const UNKNOWN =
  'is not a recognised feed: expected FIRST EPSS CSV (a #model_version comment line or the header line ' +
  'cve,epss,percentile) or CISA KEV JSON (vulnerabilities[].cveID)';

const UTF8_BOM = '\uFEFF';

/** A header naming the cve and epss columns, in any order (older files have no comment line). */
function looksLikeEpssHeader(line: string): boolean {
  const names = line.split(',').map((name) => name.trim().replace(/^"|"$/g, '').toLowerCase());
  return names.includes('cve') && names.includes('epss');
}

async function readJson(bytes: PeekableBytes): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of bytes.chunks()) {
    size += chunk.length;
    if (size > MAX_JSON_FEED_BYTES) {
      await bytes.close();
      throw new FeedFormatError(
        null,
        `the feed is JSON larger than ${MAX_JSON_FEED_BYTES} bytes; ${UNKNOWN.slice(3)}`,
      );
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FeedFormatError(
      null,
      `the feed starts like JSON but is not valid JSON: ${(error as Error).message}`,
    );
  }
}

export async function openFeed(source: FeedSource): Promise<Feed> {
  try {
    const { bytes, compressed } = await openFeedBytes(source);
    // Enough to see the first line: the EPSS comment line is short, a header shorter still.
    const head = await bytes.peek((seen) => seen.includes(0x0a) || seen.length >= 64 * 1024);
    const text = head.toString('utf8').replace(UTF8_BOM, '');
    const first = text.trimStart();
    if (first.startsWith('{')) {
      const doc = await readJson(bytes);
      if (!looksLikeKev(doc)) throw new FeedFormatError(null, `the feed is JSON but ${UNKNOWN.slice(3)}`);
      return { kind: 'kev', compressed, catalog: readKevCatalog(doc) };
    }
    const firstLine = first.split(/\r?\n/, 1)[0] ?? '';
    if (/^#\s*model_version/i.test(firstLine) || looksLikeEpssHeader(firstLine)) {
      const info = parseEpssComment(firstLine);
      let used = false;
      return {
        kind: 'epss',
        compressed,
        ...info,
        batches: (batchSize?: number) => {
          if (used) throw new Error('the EPSS rows of a feed can be read once');
          used = true;
          return readEpssBatches(bytes, batchSize);
        },
        close: () => bytes.close(),
      };
    }
    await bytes.close();
    throw new FeedFormatError(null, `the feed ${UNKNOWN}`);
  } catch (error) {
    if (isZlibError(error))
      throw new FeedFormatError(null, `the feed is gzip but cannot be decompressed: ${error.message}`);
    throw error;
  }
}

export function openFeedFile(path: string): Promise<Feed> {
  return openFeed(createReadStream(path));
}
