/**
 * One benchmark run, in order: throwaway store -> tenants -> server -> dataset through the
 * ingestion API -> the store settled (PostgreSQL: settle-store.ts; PGlite: a round of the server's
 * own maintenance) -> load cases with their ceilings -> CSV export -> ingestion COPY ceiling ->
 * result file and Markdown tables. Everything it started is stopped and dropped, even on failure.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import type { Database } from '../src/db/database.js';
import { MAINTENANCE_INTERVAL_MS } from '../src/db/embedded-maintenance.js';
import { type ActivityProfile, ActivitySampler } from './activity-sampler.js';
import { ApiClient } from './api-client.js';
import { buildCases, type LoadCase } from './cases.js';
import { BareHttpCeiling } from './ceilings/bare-http-client.js';
import { type CopyCeiling, copyCeilings } from './ceilings/copy.js';
import { createSqlRecorder, type SqlRecorder } from './ceilings/sql-capture.js';
import { csvCopyCeiling, explainCveReport, exportCsv } from './export.js';
import { figures } from './figures.js';
import { Helper } from './load/protocol.js';
import { type CaseResult, runLoadPhase } from './load-phase.js';
import { postgresSettings } from './postgres-settings.js';
import { figureTable, listTable, memoryTable, p99Growth } from './report.js';
import { bootstrapTenants, populateAccount, pushCount } from './seed.js';
import { createStore, type ServerProcess, startServer } from './server-process.js';
import { settleStore } from './settle-store.js';
import { SIZES, type SizeName, tenth } from './sizes.js';

export interface MeasureOptions {
  size: SizeName;
  engine: 'postgres' | 'pglite';
  seconds?: number;
  connections: number;
  smoke: boolean;
  /** false: the load cases alone, without the bare HTTP server, pgbench and the COPY ceiling */
  ceilings?: boolean;
  only?: string;
  /** overrides the measured account's scanned images (docs/performance.md: why) */
  scanImages?: number;
  out?: string;
  /** leave the store in place after the run, and say where it is (to study plans on its data) */
  keep?: boolean;
}

/**
 * Unmeasured load before each case: its 16 connections open at once and its first requests pay for
 * a query shape the server and PostgreSQL have not run yet. Counted, these made a case's p99 a
 * figure of its first second (docs/performance.md, "What a run does"). One second was not enough
 * for the first list case: on a freshly started server its next two seconds still ran at 0.8
 * server CPU ms a request against 0.35 from then on, and held its p99.
 */
const WARMUP_SECONDS = 3;

/** Beyond the embedded store's maintenance interval: time for the round itself (seconds at medium). */
const EMBEDDED_ROUND_MARGIN_MS = 15_000;

const bar = (format: string) =>
  new cliProgress.SingleBar(
    { format, etaBuffer: 20, noTTYOutput: true, notTTYSchedule: 10_000 },
    cliProgress.Presets.shades_classic,
  );

/**
 * The cases a smoke run puts under load: every endpoint's page 1, the tiny response and the login.
 * Its deep, filtered, sorted and searched cases are requested once each, and must answer 200: what
 * CI asks of it is that every case works, and loading all 33 took half a minute of CI's fifteen.
 */
const SMOKE_LOADED_KINDS: ReadonlySet<LoadCase['kind']> = new Set(['page1', 'tiny', 'auth']);

export async function measure(options: MeasureOptions): Promise<void> {
  const preset = SIZES[options.size];
  // A smoke run only proves every phase works: a tenth of the size keeps it within CI's minutes.
  const dataset = options.smoke ? tenth(preset.dataset) : preset.dataset;
  const size = {
    ...preset,
    dataset: options.scanImages === undefined ? dataset : { ...dataset, images: options.scanImages },
  };
  const seconds = options.smoke ? 0.3 : (options.seconds ?? size.seconds);
  const started = performance.now();
  const store = await createStore(options.engine, process.env.DATABASE_URL);
  let server: ServerProcess | undefined;
  const load = new Helper('./worker.ts');
  const ceilings = !options.smoke && options.ceilings !== false;
  const bare = ceilings ? new BareHttpCeiling() : undefined;
  let db: Database | undefined;
  let recorder: SqlRecorder | undefined;
  const phases: Record<string, number> = {};
  let phaseStart = performance.now();
  const phaseDone = (name: string) => {
    phases[name] = Math.round((performance.now() - phaseStart) / 100) / 10;
    phaseStart = performance.now();
  };
  try {
    const credentials = await bootstrapTenants(store);
    server = await startServer(store);
    const client = await ApiClient.login(server.baseUrl, credentials.key.id, credentials.key.secret);
    const other = await ApiClient.login(
      server.baseUrl,
      credentials.otherTenant.key.id,
      credentials.otherTenant.key.secret,
    );

    const small = tenth(size.dataset);
    const ingestBar = bar('ingest {bar} {value}/{total} pushes | {duration_formatted}');
    ingestBar.start(pushCount(size.dataset) + 2 * pushCount(small), 0);
    await populateAccount(other, credentials.otherTenant.accountId, small, ingestBar);
    const neighbour = await populateAccount(client, credentials.neighbourAccountId, small, ingestBar);
    // PostgreSQL: where the measured account's ingestion and export spend their time.
    const activity =
      store.engine === 'postgres' && store.url && !options.smoke
        ? await ActivitySampler.start(store.url)
        : undefined;
    const measured = await populateAccount(client, credentials.accountId, size.dataset, ingestBar, (kind) =>
      activity?.label(`ingest ${kind}`),
    );
    activity?.label(null);
    ingestBar.stop();
    phaseDone('setup_and_ingest_s');
    if (store.engine === 'postgres' && store.url) {
      await settleStore(store.url);
      phaseDone('settle_s');
    } else if (!options.smoke) {
      // PGlite's store is the server's own, which analyzes and vacuums it once a minute
      // (embedded-maintenance.ts): a round that began after the load has counted its rows. Measured
      // before one, the small store's containers page 1 was planned on statistics from part of the
      // load, at four times its cost (docs/performance.md, "What a run does", step 5).
      await delay(MAINTENANCE_INTERVAL_MS + EMBEDDED_ROUND_MARGIN_MS);
      phaseDone('settle_s');
    }

    const cases = (
      await buildCases(client, {
        accountId: credentials.accountId,
        clusterId: measured.clusters[0]!.id,
        key: credentials.key,
      })
    ).filter((c) => {
      // Several patterns, comma-separated: one ingestion serves e.g. `--only tiny,authenticate`.
      const patterns = options.only?.split(',').filter(Boolean) ?? [];
      return patterns.length === 0 || patterns.some((pattern) => c.name.includes(pattern));
    });
    if (store.engine === 'postgres' && !options.smoke && store.url) {
      db = await store.open();
      if (ceilings) recorder = await createSqlRecorder(db, store.url);
    }
    const explainDb = db;
    const loadBar = bar('load   {bar} {value}/{total} cases | {case}');
    loadBar.start(cases.length, 0, { case: '' });
    const loadPhase = await runLoadPhase(cases, {
      baseUrl: server.baseUrl,
      authorization: client.authorization,
      serverPid: server.pid,
      connections: options.connections,
      seconds,
      warmupSeconds: options.smoke ? 0 : WARMUP_SECONDS,
      // A smoke run loads one case of each endpoint; its other cases are each requested once.
      ...(options.smoke ? { loadedKinds: SMOKE_LOADED_KINDS } : {}),
      load,
      bare,
      sql:
        recorder && explainDb && store.url
          ? {
              recorder,
              url: store.url,
              explain: async (sql) =>
                (await explainDb.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`)).rows
                  .map((row) => row['QUERY PLAN'])
                  .join('\n'),
            }
          : undefined,
      onCase: (name) => {
        loadBar.increment({ case: name });
        activity?.label(`load ${name}`, 'background');
      },
    });
    loadBar.stop();
    activity?.label(null);
    phaseDone('load_s');

    const tenthExport = await exportCsv(
      server.baseUrl,
      client.authorization,
      credentials.neighbourAccountId,
      server.pid,
    );
    activity?.label('csv export');
    const exports = {
      tenth: tenthExport,
      measured: await exportCsv(server.baseUrl, client.authorization, credentials.accountId, server.pid),
    };
    const activityProfile: ActivityProfile | undefined = await activity?.stop();
    const exportPlan = db ? await explainCveReport(db, credentials.accountId) : undefined;
    const csvCeiling = db ? await csvCopyCeiling(db, credentials.accountId) : undefined;
    phaseDone('csv_export_s');
    const copy: CopyCeiling[] =
      db && store.url && ceilings ? await copyCeilings(db, store.url, credentials.accountId) : [];
    phaseDone('copy_ceiling_s');

    const resultFile =
      options.out ?? `bench/results/${options.engine}-${options.size}${options.smoke ? '-smoke' : ''}.json`;
    const smallerFile = `bench/results/${options.engine}-small.json`;
    const smallerRun =
      options.size !== 'small' && existsSync(smallerFile)
        ? (JSON.parse(readFileSync(smallerFile, 'utf8')) as { at: string; load: { cases: CaseResult[] } })
        : undefined;
    const smaller = smallerRun?.load.cases;
    const figureRows = figures({
      engine: options.engine,
      cases: loadPhase.cases,
      measured,
      exports,
      csvCeiling,
      copy,
      rssPeak: loadPhase.server_rss_peak_mib,
    });
    const result = {
      engine: options.engine,
      size: options.size,
      smoke: options.smoke,
      at: new Date().toISOString(),
      machine: {
        node: process.version,
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model,
        loadavg_at_end: loadavg(),
      },
      settings: { connections: options.connections, seconds_per_case: seconds },
      postgres_settings: store.url ? await postgresSettings(store.url) : undefined,
      phases,
      dataset: { size: size.dataset, neighbour: neighbour, measured },
      load: loadPhase,
      exports: { ...exports, plan: exportPlan, copy_ceiling: csvCeiling },
      copy_ceilings: copy,
      postgres_activity: activityProfile,
      figures: figureRows,
    };
    mkdirSync(dirname(resultFile), { recursive: true });
    writeFileSync(resultFile, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\n## ${options.engine}, ${options.size}${options.smoke ? ' (smoke)' : ''}\n`);
    console.log(listTable(loadPhase.cases, options.engine, p99Growth(loadPhase.cases, smaller)));
    // The growth column is only as good as its base: a small run of another day may have had
    // another machine (docs/performance.md, "Latest results"). `bench/tables.ts` prints the
    // table again against a newer small run.
    if (smallerRun) console.log(`\ngrowth p99 against ${smallerFile} of ${smallerRun.at}`);
    console.log();
    console.log(figureTable(figureRows));
    console.log();
    console.log(memoryTable(loadPhase.cases, loadPhase.server_at_start));
    console.log(`\nphases (s): ${JSON.stringify(phases)}\nresults: ${resultFile}`);
  } finally {
    await recorder?.close();
    await db?.close();
    await load.stop();
    await bare?.stop();
    await server?.stop();
    if (options.keep) console.log(`store kept: ${store.url ?? store.dataDir} (drop it when done)`);
    else await store.drop();
    console.log(`bench finished in ${Math.round((performance.now() - started) / 1000)} s`);
  }
}
