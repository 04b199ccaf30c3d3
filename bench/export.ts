/**
 * CVE report CSV export (#11 with `Accept: text/csv`): streamed over a socket and counted by the
 * client, with the server's peak resident set over the export (its VmHWM, reset right before).
 */
import { request } from 'node:http';
import type { Database } from '../src/db/database.js';
import { withSystemScope } from '../src/db/scope.js';
import {
  type CveReportFilters,
  cveReportCopyQuery,
  cveReportCopyStatement,
} from '../src/modules/vulnerabilities/cve-report-repository.js';
import { CVE_COLUMNS } from '../src/modules/vulnerabilities/cve-report-schemas.js';
import { memoryOf, resetPeakMemory } from './server-process.js';

/** The LF bytes of a chunk of CSV: its records, once the header's is taken off the total. */
export function newlinesIn(chunk: Buffer): number {
  let count = 0;
  for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) count++;
  return count;
}

export interface ExportResult {
  rows: number;
  mb: number;
  first_byte_ms: number;
  seconds: number;
  rows_per_s: number;
  /** server's resident set right before, and its peak during the export */
  rss_before_mib: number;
  rss_peak_mib: number;
  /** false when the kernel refused the peak reset: the peak is then the process's lifetime peak */
  peak_reset: boolean;
}

export async function exportCsv(
  baseUrl: string,
  authorization: string,
  accountId: string,
  serverPid: number,
): Promise<ExportResult> {
  const before = memoryOf(serverPid).rss_mib;
  const peakReset = resetPeakMemory(serverPid);
  const started = performance.now();
  let firstByte = 0;
  const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>((resolve, reject) => {
    const req = request(
      `${baseUrl}/accounts/${accountId}/reports/inventory_cves`,
      { headers: { authorization, accept: 'text/csv' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`CSV export answered ${res.statusCode}`));
        let total = 0;
        let newlines = 0;
        res.on('data', (chunk: Buffer) => {
          if (total === 0) firstByte = performance.now() - started;
          total += chunk.length;
          newlines += newlinesIn(chunk);
        });
        res.on('end', () => resolve({ bytes: total, lines: newlines }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  const seconds = (performance.now() - started) / 1000;
  const rows = Math.max(0, lines - 1); // the header line
  return {
    rows,
    mb: Math.round(bytes / 1e5) / 10,
    first_byte_ms: Math.round(firstByte),
    seconds: Math.round(seconds * 100) / 100,
    rows_per_s: Math.round(rows / seconds),
    rss_before_mib: before,
    rss_peak_mib: memoryOf(serverPid).hwm_mib,
    peak_reset: peakReset,
  };
}

const NO_FILTERS: CveReportFilters = {
  severities: [],
  cveNames: [],
  packageNames: [],
  packageVersions: [],
  clusterIds: [],
};
const DEFAULT_SORT = { field: 'affected_workloads_count', direction: 'desc' } as const;

/** The CSV export's ceiling: how fast PostgreSQL alone writes the same bytes. */
export interface CsvCopyCeiling {
  rows: number;
  mb: number;
  seconds: number;
  rows_per_s: number;
}

/**
 * The COPY the server runs for the export (every column, default sort, no filter), read by this
 * process straight from PostgreSQL and discarded: no HTTP, no second socket, no CRLF pass. The
 * export's rate against it is what the server and the client add to PostgreSQL's own work.
 */
export async function csvCopyCeiling(db: Database, accountId: string): Promise<CsvCopyCeiling> {
  if (!db.copyOut) throw new Error('the CSV ceiling needs PostgreSQL (COPY ... TO STDOUT)');
  const statement = cveReportCopyStatement(accountId, NO_FILTERS, DEFAULT_SORT, CVE_COLUMNS);
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  for await (const chunk of withSystemScope(() => db.copyOut!(statement))) {
    bytes += chunk.length;
    lines += newlinesIn(chunk);
  }
  const seconds = (performance.now() - started) / 1000;
  const rows = Math.max(0, lines - 1);
  return {
    rows,
    mb: Math.round(bytes / 1e5) / 10,
    seconds: Math.round(seconds * 100) / 100,
    rows_per_s: Math.round(rows / seconds),
  };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the query the export runs on PostgreSQL: the select under its COPY
 * (every column, default sort, no filter), as the server runs it (JIT off): the evidence beside
 * the export figures.
 */
export async function explainCveReport(db: Database, accountId: string): Promise<string> {
  const sql = cveReportCopyQuery(accountId, NO_FILTERS, DEFAULT_SORT, CVE_COLUMNS);
  return db.transaction(async (tx) => {
    await tx.query('set local jit = off');
    const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}
