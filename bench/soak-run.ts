/**
 * One soak run (issue 10, suite 5): throwaway store -> tenants -> server -> the size's dataset
 * through the ingestion API -> for the duration, mixed reads and an ingestion trickle from two
 * child processes, sampled every 10 s (server RSS and CPU, each child's latencies and errors) ->
 * per-minute figures, the checks, the result file. Everything it started is stopped and dropped,
 * even on failure or Ctrl-C.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import cliProgress from 'cli-progress';
import { ApiClient } from './api-client.js';
import { buildCases } from './cases.js';
import { bootstrapTenants, populateAccount, pushCount } from './seed.js';
import { cpuMsOf, createStore, memoryOf, type ServerProcess, startServer } from './server-process.js';
import { SIZES } from './sizes.js';
import { SoakChild, sleep } from './soak-child.js';
import type { IngestConfig } from './soak-ingest.js';
import type { ReadsConfig } from './soak-reads.js';
import { checksTable, compactWindows, minuteTable, runTotals } from './soak-report.js';
import { checks, errorsOf, minuteFigures, percentile, type Window } from './soak-stats.js';

export interface SoakOptions {
  size: 'small' | 'medium';
  engine: 'postgres' | 'pglite';
  minutes: number;
  connections: number;
  /** seconds between the starts of two rounds of pushes */
  ingestPeriod: number;
  out?: string;
}

const WINDOW_S = 10;

/** Runs the soak; true when every check passed. */
export async function soak(options: SoakOptions, interrupt: AbortSignal): Promise<boolean> {
  const began = performance.now();
  const dataset = SIZES[options.size].dataset;
  const store = await createStore(options.engine, process.env.DATABASE_URL);
  let server: ServerProcess | undefined;
  const children: SoakChild[] = [];
  try {
    const credentials = await bootstrapTenants(store);
    server = await startServer(store);
    const client = await ApiClient.login(server.baseUrl, credentials.key.id, credentials.key.secret);
    const seedBar = new cliProgress.SingleBar(
      {
        format: 'seed {bar} {value}/{total} pushes | {duration_formatted}',
        noTTYOutput: true,
        notTTYSchedule: 10_000,
      },
      cliProgress.Presets.shades_classic,
    );
    seedBar.start(pushCount(dataset), 0);
    const seeded = await populateAccount(client, credentials.accountId, dataset, seedBar);
    seedBar.stop();
    const seedSeconds = Math.round((performance.now() - began) / 1000);
    // The reads of the benchmark's cases; the login is left out: it writes a session per call.
    const cases = await buildCases(client, {
      accountId: credentials.accountId,
      clusterId: seeded.clusters[0]!.id,
      key: credentials.key,
    });
    const paths = cases.filter((c) => c.kind !== 'auth').map((c) => c.path);

    const seconds = Math.round(options.minutes * 60);
    const reads = new SoakChild('./soak-reads.ts', {
      baseUrl: server.baseUrl,
      authorization: client.authorization,
      paths,
      connections: options.connections,
      seconds: seconds + 600,
    } satisfies ReadsConfig);
    children.push(reads);
    const ingest = new SoakChild('./soak-ingest.ts', {
      baseUrl: server.baseUrl,
      authorization: client.authorization,
      accountId: credentials.accountId,
      clusters: seeded.clusters,
      dataset,
      periodSeconds: options.ingestPeriod,
    } satisfies IngestConfig);
    children.push(ingest);
    console.log(
      `soak: ${options.minutes} min on ${options.engine}, ${options.size}: ${paths.length} read queries at ${options.connections} connections, pushes every ${options.ingestPeriod} s`,
    );

    const windows = await sampleWindows(server.pid, seconds, reads, ingest, interrupt);
    await drained(server.pid);
    const minutes = minuteFigures(windows);
    const verdicts = checks(windows, minutes);
    const pass = verdicts.errors.pass && verdicts.memory.pass && verdicts.p99.pass && !interrupt.aborted;
    const result = {
      engine: options.engine,
      size: options.size,
      at: new Date().toISOString(),
      interrupted: interrupt.aborted,
      machine: {
        node: process.version,
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model,
        loadavg_at_end: loadavg(),
      },
      settings: {
        minutes: options.minutes,
        connections: options.connections,
        window_s: WINDOW_S,
        ingest_period_s: options.ingestPeriod,
        read_paths: paths,
      },
      phases: { seed_s: seedSeconds, load_s: windows.at(-1)?.t_s ?? 0 },
      dataset: { size: dataset, seeded },
      totals: runTotals(windows),
      minutes,
      checks: verdicts,
      pass,
      windows: compactWindows(windows),
    };
    const resultFile = options.out ?? `bench/results/soak-${options.engine}-${options.size}.json`;
    mkdirSync(dirname(resultFile), { recursive: true });
    writeFileSync(resultFile, `${JSON.stringify(result, null, 2)}\n`);
    const { reads: r, ingest: g } = result.totals;
    console.log(`\n## soak: ${options.engine}, ${options.size}, ${options.minutes} min\n`);
    console.log(minuteTable(minutes));
    console.log(
      `\nreads: ${r.requests} requests, ${r.errors} errors, p99 ${r.p99_ms} ms; pushes: ${g.requests}, ${g.errors} errors (${JSON.stringify(g.by_kind)})\n`,
    );
    console.log(checksTable(verdicts));
    console.log(
      `\nverdict: ${pass ? 'PASS' : 'FAIL'}${interrupt.aborted ? ' (interrupted)' : ''}; results: ${resultFile}`,
    );
    return pass;
  } finally {
    for (const child of children) await child.kill();
    await server?.stop();
    await store.drop();
    console.log(`soak finished in ${Math.round((performance.now() - began) / 1000)} s`);
  }
}

/**
 * Waits (at most 30 s) until the server has finished the requests the load generators cut at the
 * deadline: stopped while they still ran, the server would close its pool under them and log
 * their failures after the verdict (a shutdown-ordering issue of its own, noted in the docs).
 */
async function drained(pid: number): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const before = cpuMsOf(pid);
    await sleep(500);
    if (cpuMsOf(pid) - before < 30) return;
  }
}

/** Every WINDOW_S seconds until the deadline: what each child saw, the server's RSS and CPU. */
async function sampleWindows(
  pid: number,
  seconds: number,
  reads: SoakChild,
  ingest: SoakChild,
  interrupt: AbortSignal,
): Promise<Window[]> {
  const windows: Window[] = [];
  const start = performance.now();
  let cpuBefore = cpuMsOf(pid);
  // RSS swings by the garbage of large pages between two collections: each window keeps the
  // lowest and highest of once-a-second samples as well as its final one.
  let low = Number.POSITIVE_INFINITY;
  let high = 0;
  const sampleRss = () => {
    const rss = memoryOf(pid).rss_mib;
    low = Math.min(low, rss);
    high = Math.max(high, rss);
    return rss;
  };
  const rssSampler = setInterval(sampleRss, 1000);
  try {
    const interrupted = new Promise<void>((resolve) => interrupt.addEventListener('abort', () => resolve()));
    for (let i = 1; ; i++) {
      const due = Math.min(i * WINDOW_S, seconds);
      const wait = start + due * 1000 - performance.now();
      if (wait > 0) await Promise.race([sleep(wait), interrupted]);
      const last = due >= seconds || interrupt.aborted;
      // Nominal times keep the windows on the minute grid; an interrupted run keeps its real end.
      const t_s = interrupt.aborted ? Math.round((performance.now() - start) / 100) / 10 : due;
      const [readBatch, ingestBatch] = await Promise.all(
        last ? [reads.stop(), ingest.stop()] : [reads.flush(), ingest.flush()],
      );
      const cpu = cpuMsOf(pid);
      const rss = sampleRss();
      const window: Window = {
        t_s,
        rss_mib: rss,
        rss_min_mib: low,
        rss_max_mib: high,
        server_cpu_ms: cpu - cpuBefore,
        reads: readBatch,
        ingest: ingestBatch,
      };
      cpuBefore = cpu;
      low = Number.POSITIVE_INFINITY;
      high = 0;
      windows.push(window);
      console.log(
        `  ${String(t_s).padStart(5)} s  rss ${rss} MiB (${window.rss_min_mib}-${window.rss_max_mib})  reads ${readBatch.latencies_ms.length} (p99 ${percentile(readBatch.latencies_ms, 99)} ms, errors ${errorsOf(readBatch)})  pushes ${ingestBatch.latencies_ms.length} (errors ${errorsOf(ingestBatch)})`,
      );
      if (last) return windows;
      const failed = reads.failed ?? ingest.failed;
      if (failed) throw new Error(`a load generator stopped: ${failed}`);
    }
  } finally {
    clearInterval(rssSampler);
  }
}
