/**
 * Prints the Markdown tables of saved result files again (for docs/performance.md), with the p99
 * growth against the same engine's small run when there is one.
 * Run: `npx tsx bench/tables.ts bench/results/postgres-medium.json [...]`.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { CaseResult } from './load-phase.js';
import { type Figure, figureTable, listTable, memoryTable, p99Growth } from './report.js';
import type { ServerHeap } from './server-memory.js';

interface ResultFile {
  engine: string;
  size: string;
  at: string;
  phases?: Record<string, number>;
  settings: { connections: number; seconds_per_case: number };
  machine: { loadavg_at_end: number[] };
  load: { cases: CaseResult[]; server_at_start?: { rss_mib: number; hwm_mib?: number; heap?: ServerHeap } };
  figures: Figure[];
  dataset: { size: { images: number } };
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ResultFile;

for (const file of process.argv.slice(2)) {
  const result = read(file);
  const smallFile = `bench/results/${result.engine}-small.json`;
  const smaller = result.size !== 'small' && existsSync(smallFile) ? read(smallFile).load.cases : undefined;
  console.log(`### ${result.engine}, ${result.size} (${result.at})\n`);
  console.log(
    `${result.settings.connections} connections, ${result.settings.seconds_per_case} s per case; ` +
      `${result.dataset.size.images} scanned images; ` +
      `load average at the end ${result.machine.loadavg_at_end.map((n) => n.toFixed(1)).join(' / ')}; ` +
      `phases (s) ${JSON.stringify(result.phases ?? {})}\n`,
  );
  console.log(listTable(result.load.cases, result.engine, p99Growth(result.load.cases, smaller)));
  console.log();
  console.log(figureTable(result.figures));
  console.log();
  // Result files before 2026-11-23 have no per-case memory.
  if (result.load.cases.some((c) => c.memory)) {
    console.log(memoryTable(result.load.cases, result.load.server_at_start));
    console.log();
  }
}
