/**
 * The run's headline figures, each with its ceiling and the target: authentication,
 * request overhead, the three ingestion rates, the CSV export and server memory.
 */
import type { CopyCeiling, IngestKind } from './ceilings/copy.js';
import type { CsvCopyCeiling, ExportResult } from './export.js';
import type { CaseResult } from './load-phase.js';
import type { Figure } from './report.js';
import type { AccountData, IngestTally } from './seed.js';

export interface FigureInput {
  engine: string;
  cases: CaseResult[];
  measured: AccountData;
  exports: { tenth: ExportResult; measured: ExportResult };
  /** PostgreSQL's COPY of the same report, read and discarded (PostgreSQL runs only) */
  csvCeiling?: CsvCopyCeiling | undefined;
  copy: CopyCeiling[];
  rssPeak: number;
}

const perSecond = (tally: IngestTally) => (tally.seconds > 0 ? tally.items / tally.seconds : 0);

export function figures(input: FigureInput): Figure[] {
  const rows: Figure[] = [];
  const auth = input.cases.find((c) => c.kind === 'auth');
  if (auth) {
    rows.push({
      figure: `POST /authentication/authenticate p99 (${auth.server.rps} req/s, CPU ms/req ${auth.server_cpu_ms_per_req})`,
      value: auth.server.p99_ms,
      unit: 'ms',
      target: '<= 20 ms',
      pass: auth.server.p99_ms <= 20,
    });
  }
  const tiny = input.cases.find((c) => c.kind === 'tiny');
  if (tiny) {
    const ceiling = tiny.http_ceiling?.rps;
    rows.push({
      figure: `authenticated tiny response (GET /accounts/{id}) req/s; p99 ${tiny.server.p99_ms} ms; CPU ms/req ${tiny.server_cpu_ms_per_req} vs ${tiny.http_ceiling?.cpu_ms_per_req ?? '-'} bare`,
      value: tiny.server.rps,
      unit: 'req/s',
      ceiling,
      target: '>= 50% of the HTTP ceiling',
      pass: ceiling ? tiny.server.rps >= 0.5 * ceiling : undefined,
    });
  }
  const copyRate = (kind: IngestKind, items: number) => {
    const copy = input.copy.find((c) => c.kind === kind);
    return copy && copy.seconds > 0 ? items / copy.seconds : undefined;
  };
  const k8s = perSecond(input.measured.kubernetes);
  const k8sCeiling = copyRate('kubernetes', input.measured.kubernetes.items);
  rows.push({
    figure: `Kubernetes ingestion (${input.measured.kubernetes.items} objects)`,
    value: k8s,
    unit: 'objects/s',
    ceiling: k8sCeiling,
    target: '>= 5,000/s, >= 30% of COPY',
    pass: k8s >= 5000 && (k8sCeiling === undefined || k8s >= 0.3 * k8sCeiling),
  });
  const vulns = perSecond(input.measured.vulnerabilities);
  rows.push({
    figure: `vulnerability ingestion (${input.measured.vulnerabilities.items} rows)`,
    value: vulns,
    unit: 'rows/s',
    ceiling: copyRate('vulnerabilities', input.measured.vulnerabilities.items),
    target: '>= 20,000/s',
    pass: vulns >= 20_000,
  });
  const events = perSecond(input.measured.runtime);
  rows.push({
    figure: `runtime ingestion (${input.measured.runtime.items} events)`,
    value: events,
    unit: 'events/s',
    ceiling: copyRate('runtime', input.measured.runtime.items),
    target: '>= 20,000/s',
    pass: events >= 20_000,
  });
  const csv = input.exports.measured;
  rows.push({
    figure: `CVE report CSV (${csv.rows} rows, first byte ${csv.first_byte_ms} ms)`,
    value: csv.rows_per_s,
    unit: 'rows/s',
    ceiling: input.csvCeiling?.rows_per_s,
    target: '>= 50,000/s',
    pass: csv.rows_per_s >= 50_000,
  });
  const growth = csv.rss_peak_mib / Math.max(1, input.exports.tenth.rss_peak_mib);
  rows.push({
    figure: `CSV peak server RSS, ${csv.rows} rows over ${input.exports.tenth.rows} rows (${csv.rss_peak_mib} / ${input.exports.tenth.rss_peak_mib} MiB)`,
    value: growth,
    unit: 'x',
    target: '<= 1.2x',
    pass: growth <= 1.2,
  });
  rows.push({
    figure: `server RSS under load${input.engine === 'pglite' ? ' (PGlite runs inside it)' : ''}`,
    value: input.rssPeak,
    unit: 'MiB',
    target: '<= 300 MB',
    pass: input.rssPeak <= 300,
  });
  return rows;
}
