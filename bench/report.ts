/**
 * Targets of issue 9 applied to one run's figures, and the Markdown tables printed at the end
 * (and pasted into docs/performance.md). Every figure sits beside its ceiling and the ratio.
 */
import type { CaseResult } from './load-phase.js';
import type { ServerHeap } from './server-memory.js';

export interface Figure {
  figure: string;
  value: number;
  unit: string;
  ceiling?: number | undefined;
  target: string;
  pass: boolean | undefined;
}

const fmt = (value: number | undefined) =>
  value === undefined || Number.isNaN(value)
    ? '-'
    : value >= 100
      ? Math.round(value).toLocaleString('en-US')
      : String(Math.round(value * 100) / 100);
const ratio = (value: number, ceiling: number | undefined) =>
  ceiling ? `${Math.round((value / ceiling) * 100)}%` : '-';
const verdict = (pass: boolean | undefined) => (pass === undefined ? '-' : pass ? 'pass' : '**miss**');

/** p99 limit of a list request: 50 ms on PostgreSQL (issue 9), 200 ms on embedded PGlite. */
export const listP99Limit = (engine: string) => (engine === 'pglite' ? 200 : 50);

/** undefined when the case completed no request (a smoke run's fraction of a second). */
export function listPass(result: CaseResult, engine: string): boolean | undefined {
  if (result.server.ok === 0) return undefined;
  const fast = result.server.p99_ms <= listP99Limit(engine);
  const close = result.db_ceiling ? result.server.rps >= 0.5 * result.db_ceiling.tps : true;
  return fast && close && result.server.non2xx === 0 && result.server.errors === 0;
}

export function listTable(cases: CaseResult[], engine: string, growth?: Map<string, number>): string {
  const limit = listP99Limit(engine);
  const lines = [
    '| case | p99 ms | req/s | server CPU ms/req | DB ceiling tps (p99 ms) | vs DB | HTTP ceiling req/s | vs HTTP | growth p99 | target | verdict |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ];
  for (const result of cases.filter((c) => c.kind !== 'auth' && c.kind !== 'tiny')) {
    const db = result.db_ceiling;
    const http = result.http_ceiling;
    const grew = growth?.get(result.name);
    lines.push(
      `| ${result.name} | ${fmt(result.server.p99_ms)} | ${fmt(result.server.rps)} | ${fmt(result.server_cpu_ms_per_req)} | ${
        db ? `${fmt(db.tps)} (${fmt(db.p99_ms)})` : '-'
      } | ${ratio(result.server.rps, db?.tps)} | ${fmt(http?.rps)} | ${ratio(result.server.rps, http?.rps)} | ${
        grew === undefined ? '-' : `${fmt(grew)}x`
      } | p99 <= ${limit} ms${db ? ', >= 50% of DB' : ''} | ${verdict(listPass(result, engine))} |`,
    );
  }
  return lines.join('\n');
}

export function figureTable(figures: Figure[]): string {
  const lines = [
    '| figure | value | ceiling | ratio | target | verdict |',
    '| --- | ---: | ---: | ---: | --- | --- |',
  ];
  for (const f of figures) {
    lines.push(
      `| ${f.figure} | ${fmt(f.value)} ${f.unit} | ${f.ceiling === undefined ? '-' : fmt(f.ceiling)} | ${ratio(
        f.value,
        f.ceiling,
      )} | ${f.target} | ${verdict(f.pass)} |`,
    );
  }
  return lines.join('\n');
}

/** p99 of this run over p99 of a smaller run, per case name present in both. */
export function p99Growth(current: CaseResult[], smaller: CaseResult[] | undefined): Map<string, number> {
  const growth = new Map<string, number>();
  for (const result of current) {
    const before = smaller?.find((other) => other.name === result.name);
    if (before && before.server.p99_ms > 0)
      growth.set(result.name, result.server.p99_ms / before.server.p99_ms);
  }
  return growth;
}

/**
 * Where the server's memory went, case by case: its resident set when the case started and its
 * peak during it, and the V8 heap (used / total) and external memory at the case's end. The first
 * row is the server as ingestion left it, the load phase's starting point.
 */
export function memoryTable(
  cases: CaseResult[],
  atStart?: { rss_mib: number; hwm_mib?: number; heap?: ServerHeap | undefined },
): string {
  const heapCells = (heap: ServerHeap | undefined) =>
    heap ? `${fmt(heap.heap_used_mib)} / ${fmt(heap.heap_total_mib)} | ${fmt(heap.external_mib)}` : '- | -';
  const lines = [
    '| case | RSS at start MiB | peak RSS MiB | heap used / total MiB (end) | external MiB (end) |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  if (atStart)
    lines.push(
      `| after ingestion (peak during it) | ${fmt(atStart.rss_mib)} | ${fmt(atStart.hwm_mib)} | ${heapCells(atStart.heap)} |`,
    );
  for (const result of cases) {
    const memory = result.memory;
    if (!memory) continue;
    lines.push(
      `| ${result.name} | ${fmt(memory.rss_start_mib)} | ${fmt(memory.rss_peak_mib)} | ${heapCells(memory.heap)} |`,
    );
  }
  return lines.join('\n');
}
