/**
 * FIRST EPSS scores (https://www.first.org/epss/data_stats): a CSV with an optional comment line
 * `#model_version:v2023.03.01,score_date:2024-07-01T00:00:00+0000`, a header `cve,epss,percentile`
 * and about 250,000 rows. Rows are parsed by csv-parse as a stream and handed out in batches, so
 * memory does not grow with the file. Columns are found by header name (extra columns are
 * ignored); every row is checked and the first bad one stops the import with its line number.
 * The importer is expected to write all batches in one transaction, so a bad file changes nothing.
 */

import { Readable } from 'node:stream';
import { CsvError, type InfoRecord, parse } from 'csv-parse';
import { normalizeTimestamp } from '../vulnerabilities/timestamp.js';
import { FeedFormatError } from './feed-format-error.js';
import { isZlibError, type PeekableBytes } from './feed-input.js';

export interface EpssScore {
  cve: string;
  /** Probability of exploitation activity in the next 30 days, 0 to 1. */
  epss: number;
  /** Rank of this score among all scored CVEs, 0 to 1. */
  percentile: number;
}

export interface EpssFeedInfo {
  modelVersion: string | null;
  /** RFC 3339 UTC with milliseconds. */
  scoreDate: string | null;
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
export const EPSS_COLUMNS = ['cve', 'epss', 'percentile'] as const;

const fail = (line: number | null, detail: string): never => {
  throw new FeedFormatError('epss', line === null ? detail : `line ${line}: ${detail}`, line);
};

/** Reads `#model_version:...,score_date:...` (the first line when it is a comment). */
export function parseEpssComment(firstLine: string): EpssFeedInfo {
  const info: EpssFeedInfo = { modelVersion: null, scoreDate: null };
  if (!firstLine.startsWith('#')) return info;
  for (const pair of firstLine.slice(1).trim().split(',')) {
    const colon = pair.indexOf(':');
    const key = colon > 0 ? pair.slice(0, colon).trim() : '';
    const value = pair.slice(colon + 1).trim();
    if (key === 'model_version' && value) info.modelVersion = value;
    if (key === 'score_date' && value) {
      info.scoreDate = normalizeTimestamp(value) ?? fail(1, `score_date "${value}" is not a date`);
    }
  }
  return info;
}

function probability(raw: string, column: string, line: number): number {
  const value = DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 0 && value <= 1))
    fail(line, `${column} is ${JSON.stringify(raw)}, expected a number from 0 to 1`);
  return value;
}

/**
 * The scores of an EPSS CSV, `batchSize` at a time. Within a batch a CVE appears once (a repeat
 * replaces the earlier row), so a batch can go straight into one upsert statement.
 */
export async function* readEpssBatches(bytes: PeekableBytes, batchSize = 5000): AsyncGenerator<EpssScore[]> {
  const parser = parse({
    bom: true,
    comment: '#',
    comment_no_infix: true,
    info: true,
    skip_empty_lines: true,
    trim: true,
    relax_column_count: true,
  });
  const input = Readable.from(bytes.chunks());
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let columns: number[] | null = null;
  let headerLength = 0;
  let lastLine = 0;
  let rows = 0;
  let batch = new Map<string, EpssScore>();
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: InfoRecord }>) {
      const line = info.lines;
      lastLine = line;
      if (columns === null) {
        const header = record.map((name) => name.toLowerCase());
        headerLength = header.length;
        columns = EPSS_COLUMNS.map((name) => header.indexOf(name));
        if (columns.some((index) => index < 0)) {
          fail(
            line,
            `the header is ${JSON.stringify(record.join(','))}, expected the columns ${EPSS_COLUMNS.join(',')}`,
          );
        }
        continue;
      }
      if (record.length !== headerLength)
        fail(line, `has ${record.length} fields, the header has ${headerLength}`);
      const [cve = '', epss = '', percentile = ''] = columns.map((index) => record[index] ?? '');
      if (!CVE_ID.test(cve))
        fail(line, `cve is ${JSON.stringify(cve)}, expected an id such as CVE-2024-1234`);
      const score = {
        cve: cve.toUpperCase(),
        epss: probability(epss, 'epss', line),
        percentile: probability(percentile, 'percentile', line),
      };
      batch.delete(score.cve);
      batch.set(score.cve, score);
      rows++;
      if (batch.size >= batchSize) {
        yield [...batch.values()];
        batch = new Map();
      }
    }
  } catch (error) {
    if (error instanceof FeedFormatError) throw error;
    if (isZlibError(error)) fail(null, `the gzip data breaks off after line ${lastLine}: ${error.message}`);
    if (error instanceof CsvError) fail(typeof error.lines === 'number' ? error.lines : null, error.message);
    throw error;
  } finally {
    input.destroy();
    await bytes.close();
  }
  if (columns === null) fail(null, 'the header line cve,epss,percentile is missing');
  if (rows === 0) fail(null, 'there are no score rows after the header');
  if (batch.size > 0) yield [...batch.values()];
}
