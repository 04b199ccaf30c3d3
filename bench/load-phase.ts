/**
 * Runs every load case against the server, each beside its ceilings in the same run: the bare
 * HTTP server answering the same bytes (tiny response and every page 1), and pgbench running the
 * case's captured SQL (PostgreSQL). The tiny response and its bare server take turns in short
 * windows (load/windows.ts). The server's resident set is sampled throughout.
 */
import type { LoadCase } from './cases.js';
import type { BareHttpCeiling } from './ceilings/bare-http-client.js';
import { type PgbenchResult, pgbench } from './ceilings/pgbench.js';
import { inline, type SqlRecorder } from './ceilings/sql-capture.js';
import type { Helper, LoadRequest, LoadSummary } from './load/protocol.js';
import { mergeWindows, turnsOf } from './load/windows.js';
import { heapOf, type MemoryWindow, RssSampler } from './server-memory.js';
import { cpuMsOf, memoryOf } from './server-process.js';

export interface CaseResult {
  name: string;
  endpoint: string;
  kind: LoadCase['kind'];
  path: string;
  response_bytes: number;
  server: LoadSummary;
  /**
   * CPU milliseconds the server process spent per successful request: unlike req/s, barely
   * moved by other work on a shared machine (PGlite's share included, as it runs inside).
   */
  server_cpu_ms_per_req: number;
  /** the server's resident set over the case, and its heap at the end (server-memory.ts) */
  memory?: MemoryWindow;
  http_ceiling?: LoadSummary & { cpu_ms_per_req: number };
  /** windows the server and its bare ceiling took in turns, each side's figures merged (windows.ts) */
  turns?: number;
  db_ceiling?: PgbenchResult & { statements: number };
  /** EXPLAIN ANALYZE of the count and page queries (PostgreSQL) */
  plan?: string;
}

export interface LoadPhaseOptions {
  baseUrl: string;
  authorization: string;
  serverPid: number;
  connections: number;
  seconds: number;
  /** unmeasured load before each measured run (server and bare ceiling alike) */
  warmupSeconds: number;
  load: Helper;
  bare: BareHttpCeiling | undefined;
  sql: { recorder: SqlRecorder; url: string; explain: (sql: string) => Promise<string> } | undefined;
  onCase: (name: string) => void;
  /**
   * The kinds of case put under load; the others are only probed (one request, which must answer
   * 200) and have no result. Unset: every case is loaded.
   */
  loadedKinds?: ReadonlySet<LoadCase['kind']>;
}

const LIST_KINDS = new Set<LoadCase['kind']>(['page1', 'deep', 'filter', 'sort', 'q']);

/** One run of the load, and the CPU milliseconds the loaded process spent over it. */
interface Window {
  summary: LoadSummary;
  cpuMs: number;
}

async function timedRun(load: Helper, request: LoadRequest, pid: number): Promise<Window> {
  const cpuBefore = cpuMsOf(pid);
  const { summary } = await load.ask<{ summary: LoadSummary }>(request);
  return { summary, cpuMs: cpuMsOf(pid) - cpuBefore };
}

/** Windows of one process as one summary, and its CPU per request over all of them. */
function merged(windows: Window[]) {
  const summary = mergeWindows(windows.map((w) => w.summary));
  const cpuMs = windows.reduce((total, w) => total + w.cpuMs, 0);
  return { summary, cpuPerRequest: cpuMs / Math.max(1, summary.requests) };
}

export async function runLoadPhase(cases: LoadCase[], options: LoadPhaseOptions) {
  const sampler = new RssSampler(options.serverPid);
  // What ingestion left behind, and its peak (VmHWM, not reset before this point): the load
  // starts from it.
  const atStart = { ...memoryOf(options.serverPid), heap: await heapOf(options.baseUrl) };
  const results: CaseResult[] = [];
  try {
    for (const loadCase of cases) {
      options.onCase(loadCase.name);
      sampler.openWindow();
      const headers: Record<string, string> = {
        ...(loadCase.authenticated ? { authorization: options.authorization } : {}),
        ...(loadCase.body ? { 'content-type': 'application/json' } : {}),
      };
      const probe = await fetch(`${options.baseUrl}${loadCase.path}`, {
        method: loadCase.method,
        headers,
        ...(loadCase.body ? { body: loadCase.body } : {}),
      });
      const body = await probe.text();
      if (probe.status !== 200) throw new Error(`${loadCase.name}: ${probe.status} ${body.slice(0, 300)}`);
      if (options.loadedKinds && !options.loadedKinds.has(loadCase.kind)) {
        await sampler.closeWindow(options.baseUrl);
        continue;
      }
      const request: LoadRequest = {
        url: `${options.baseUrl}${loadCase.path}`,
        method: loadCase.method,
        headers,
        ...(loadCase.body ? { body: loadCase.body } : {}),
        connections: options.connections,
        seconds: options.seconds,
      };
      const warmUp = async (url: string) => {
        if (options.warmupSeconds > 0) {
          await options.load.ask<{ summary: LoadSummary }>({
            ...request,
            url,
            seconds: options.warmupSeconds,
          });
        }
      };
      // The bare server answering this case's bytes, for the cases measured beside it.
      const bare =
        options.bare && (loadCase.kind === 'tiny' || loadCase.kind === 'page1')
          ? {
              pid: options.bare.pid,
              url: await options.bare.serve(body, probe.headers.get('content-type') ?? 'application/json'),
            }
          : undefined;
      await warmUp(request.url);
      if (bare) await warmUp(bare.url);
      // The tiny case's target is its share of the bare server's rate, so the two take turns and
      // see the same machine; a page 1's bare figure is context only, measured once after it.
      const turns =
        bare && loadCase.kind === 'tiny' ? turnsOf(options.seconds) : { turns: 1, seconds: options.seconds };
      const serverWindows: Window[] = [];
      const bareWindows: Window[] = [];
      for (let turn = 0; turn < turns.turns; turn++) {
        serverWindows.push(
          await timedRun(options.load, { ...request, seconds: turns.seconds }, options.serverPid),
        );
        if (bare) {
          bareWindows.push(
            await timedRun(options.load, { ...request, url: bare.url, seconds: turns.seconds }, bare.pid),
          );
        }
      }
      const server = merged(serverWindows);
      const memory = await sampler.closeWindow(options.baseUrl);
      const result: CaseResult = {
        name: loadCase.name,
        endpoint: loadCase.endpoint,
        kind: loadCase.kind,
        path: loadCase.path,
        response_bytes: Buffer.byteLength(body),
        server: server.summary,
        server_cpu_ms_per_req: Math.round(server.cpuPerRequest * 100) / 100,
        memory,
        ...(turns.turns > 1 ? { turns: turns.turns } : {}),
      };
      if (bareWindows.length > 0) {
        const ceiling = merged(bareWindows);
        result.http_ceiling = {
          ...ceiling.summary,
          cpu_ms_per_req: Math.round(ceiling.cpuPerRequest * 1000) / 1000,
        };
      }
      if (options.sql && LIST_KINDS.has(loadCase.kind)) {
        const statements = (await options.sql.recorder.capture(loadCase, options.authorization)).map(inline);
        const ceiling = await pgbench(options.sql.url, statements, options);
        result.db_ceiling = { ...ceiling, statements: statements.length };
        // The page and its count: either can be the slow half of a list request.
        const listSql = statements.filter((sql) => / limit | count\(\*\)/i.test(sql));
        const plans = [];
        for (const sql of listSql) plans.push(await options.sql.explain(sql));
        if (plans.length > 0) result.plan = plans.join('\n\n');
      }
      results.push(result);
    }
  } finally {
    sampler.stop();
  }
  return {
    cases: results,
    server_at_start: atStart,
    /** sampled every 200 ms, and since 2026-11-23 also each case's VmHWM (server-memory.ts) */
    server_rss_peak_mib: sampler.phasePeak,
  };
}
