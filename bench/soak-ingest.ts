/**
 * The soak's ingestion trickle (a child process): one agent of the measured account pushing, in a
 * loop, a slice of a cluster's pods with a new resourceVersion (new resource records), a scan
 * report of one of the images again, and a batch of runtime events later than any before, each
 * with an Idempotency-Key, then waiting for the rest of its period. One push at a time, as one
 * agent would; a push slower than the period only delays the next.
 */
import { randomUUID } from 'node:crypto';
import { syntheticStream } from '../src/engines/runtime/sample/bench.js';
import { asLists, podsVersion } from './dataset/kubernetes.js';
import { scanReport } from './dataset/scans.js';
import type { DatasetSize } from './sizes.js';
import { type Recorder, serveSoakChild, sleep } from './soak-child.js';

export interface IngestConfig {
  baseUrl: string;
  authorization: string;
  accountId: string;
  clusters: { id: string; name: string }[];
  dataset: DatasetSize;
  /** seconds from the start of one round of three pushes to the next */
  periodSeconds: number;
}

const PODS_PER_PUSH = 200;
const EVENTS_PER_PUSH = 1_000;
/** A push that takes longer than this is an error of the run (the server is stuck). */
const PUSH_TIMEOUT_MS = 120_000;
const HOUR_MS = 3_600_000;

type Kind = 'kubernetes' | 'vulnerabilities' | 'runtime';

/** The seed's runtime stream spans 8 hours from its first event; round `n` moves a copy past it. */
function shiftedEvents(events: { timestamp: string }[], round: number): string {
  const shift = (round + 1) * 9 * HOUR_MS;
  return `${events
    .map((event) =>
      JSON.stringify({ ...event, timestamp: new Date(Date.parse(event.timestamp) + shift).toISOString() }),
    )
    .join('\n')}\n`;
}

serveSoakChild<IngestConfig>(async (config, recorder) => {
  const stopping = new AbortController();
  // One promise for the whole run: a listener per round would pile up on the signal.
  const stopped = new Promise<void>((resolve) =>
    stopping.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  let inFlight: AbortController | undefined;
  const account = `${config.baseUrl}/accounts/${config.accountId}`;
  const events = syntheticStream(EVENTS_PER_PUSH);
  const size = config.dataset;

  const push = async (kind: Kind, path: string, body: string, contentType: string) => {
    inFlight = new AbortController();
    await timedPush(recorder, kind, `${account}${path}`, body, contentType, config.authorization, inFlight);
    inFlight = undefined;
  };

  const loop = async () => {
    for (let round = 0; !stopping.signal.aborted; round++) {
      const began = performance.now();
      const cluster = config.clusters[round % config.clusters.length]!;
      // Versions above the seed's, one more each round, so every pushed pod is a new record.
      const pods = podsVersion(size.cluster, size.images, cluster.name, size.cluster.podVersions + 1 + round);
      const slices = Math.max(1, Math.ceil(pods.length / PODS_PER_PUSH));
      const start = (Math.floor(round / config.clusters.length) % slices) * PODS_PER_PUSH;
      const list = asLists(pods.slice(start, start + PODS_PER_PUSH), PODS_PER_PUSH)[0]!;
      await push(
        'kubernetes',
        `/clusters/${cluster.id}/ingest/kubernetes`,
        JSON.stringify(list),
        'application/json',
      );
      if (stopping.signal.aborted) break;
      const scan = scanReport(round % size.images, size.packagesPerImage, size.cvesPerPackage, 0);
      const scanned = config.clusters[0]!;
      await push(
        'vulnerabilities',
        `/clusters/${scanned.id}/ingest/vulnerabilities`,
        JSON.stringify(scan),
        'application/json',
      );
      if (stopping.signal.aborted) break;
      await push(
        'runtime',
        `/clusters/${scanned.id}/ingest/runtime`,
        shiftedEvents(events, round),
        'application/x-ndjson',
      );
      const rest = config.periodSeconds * 1000 - (performance.now() - began);
      if (rest > 0) await Promise.race([sleep(rest), stopped]);
    }
  };
  const running = loop();
  return {
    async stop() {
      stopping.abort();
      inFlight?.abort(new Error('deadline'));
      await running;
    },
  };
});

/** One push; its answer (or the lack of one) goes to the recorder, unless the run's end cut it. */
async function timedPush(
  recorder: Recorder,
  kind: Kind,
  url: string,
  body: string,
  contentType: string,
  authorization: string,
  cut: AbortController,
): Promise<void> {
  const started = performance.now();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    cut.abort(new Error('timeout'));
  }, PUSH_TIMEOUT_MS);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization, 'content-type': contentType, 'idempotency-key': `soak-${randomUUID()}` },
      body,
      signal: cut.signal,
    });
    const text = await response.text();
    recorder.answered(response.status, performance.now() - started, kind);
    if (!response.ok) console.error(`soak: ${kind} push answered ${response.status}: ${text.slice(0, 300)}`);
  } catch (error) {
    if (cut.signal.aborted && !timedOut) return; // cut by the deadline: neither an answer nor an error
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason = `${kind}: ${timedOut ? 'timeout' : (cause ?? (error as Error).name ?? 'error')}`;
    recorder.failed(reason);
    console.error(`soak: ${kind} push failed: ${String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
