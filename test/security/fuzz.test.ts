/**
 * Fuzzing (issue 10, suite 2): requests generated from /openapi.json by fast-check from a fixed
 * seed, valid ones (real ids of a populated tenant) and mutations of them (fuzz-mutations.ts),
 * sent by each role and by no one; then oversized ingestion bodies and gzip bombs. Invariants
 * (fuzz-invariants.ts): no 5xx, every error the ApiError with its header's request id, every 2xx
 * valid against the document (the harness). FUZZ_SEED and FUZZ_RUNS override seed and count;
 * see docs/security.md.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { INGEST_BODY_LIMIT, INGEST_DECOMPRESSED_LIMIT } from '../../src/ingest/body.js';
import type { TestResponse } from '../support/harness.js';
import { isRawBodyRoute } from './fuzz-ingest-bodies.js';
import { brokenInvariants } from './fuzz-invariants.js';
import { mutatedOrValid } from './fuzz-mutations.js';
import { type FuzzRequest, urlOf, validRequest } from './fuzz-requests.js';
import { buildFuzzWorld, type FuzzCaller, type FuzzWorld } from './fuzz-world.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);
const MiB = 1024 * 1024;

let world: FuzzWorld;

/** A small seeded generator for the setup's random choices (the property has fast-check's own). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return state / 2 ** 32;
  };
}

before(async () => {
  world = await buildFuzzWorld(seeded(SEED));
});
after(() => world?.t.close());

const stats = {
  byStatus: new Map<number, number>(),
  byKind: new Map<string, number>(),
  msByRoute: new Map<string, number>(),
  msByKind: new Map<string, number>(),
};
const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

/** Sends one request through the harness (which checks the document) and the suite's invariants. */
async function send(request: FuzzRequest, caller: FuzzCaller): Promise<string[]> {
  const url = urlOf(request);
  let res: TestResponse;
  const started = performance.now();
  try {
    res = await world.t.request({
      method: request.method,
      url,
      headers: { ...request.headers, ...caller.headers },
      ...(request.payload !== undefined ? { payload: request.payload } : {}),
    });
  } catch (error) {
    // the harness's own checks: a body off the document, an error body without its request id
    return [`harness: ${error instanceof Error ? error.message.slice(0, 600) : String(error)}`];
  }
  const route = `${request.op.method} ${request.op.path}`;
  const kind = request.kind.replace(/ \(.*\)$/, '');
  const elapsed = performance.now() - started;
  stats.msByRoute.set(route, (stats.msByRoute.get(route) ?? 0) + elapsed);
  stats.msByKind.set(kind, (stats.msByKind.get(kind) ?? 0) + elapsed);
  count(stats.byStatus, res.status);
  count(stats.byKind, kind);
  const broken = brokenInvariants(res);
  return broken.length === 0 ? [] : [...broken, `answer: ${res.status} ${res.text.slice(0, 300)}`];
}

const describe = (request: FuzzRequest, caller: FuzzCaller) =>
  `${caller.name}: ${request.method} ${urlOf(request).slice(0, 400)} [${request.kind}] ` +
  `headers ${JSON.stringify(request.headers)} body ${String(request.payload ?? '').slice(0, 200)}`;

/** Violations by class (first broken invariant, route, kind), with the first request of each. */
const violations = new Map<string, { count: number; example: string }>();

function record(request: FuzzRequest, caller: FuzzCaller, broken: string[], index: number): void {
  const first = (broken[0] ?? '')
    .split('\n')[0]
    ?.replace(/[0-9a-f-]{36}/g, '<id>')
    .slice(0, 200);
  const key = `${first} @ ${request.method} ${request.op.path} [${request.kind.replace(/ \(.*\)$/, '')}]`;
  const seen = violations.get(key);
  if (seen) seen.count++;
  else
    violations.set(key, {
      count: 1,
      example: `#${index} ${describe(request, caller)}\n  ${broken.join('\n  ')}`,
    });
}

test(`fuzz: ${RUNS} requests from seed ${SEED}`, { timeout: 280_000 }, async () => {
  if (world.misses.length > 0) console.log(`detail routes without an owner hit: ${world.misses.join('; ')}`);
  const { callers, context, operations } = world;
  const caller = fc.oneof(
    ...callers.map((c) => ({
      arbitrary: fc.constant({ ...c, [fc.toStringMethod]: () => c.name }),
      weight: c.role === 'admin' ? 6 : c.role === 'none' ? 1 : 2,
    })),
  );
  // one generator per operation, so every operation gets its share whatever its parameters
  const request = fc
    .oneof(...operations.map((op) => validRequest(op, context).chain((r) => mutatedOrValid(r, 8))))
    .map((r) => ({ ...r, [fc.toStringMethod]: () => `${r.method} ${urlOf(r).slice(0, 300)} [${r.kind}]` }));
  const started = Date.now();
  let index = 0;
  // Every request runs and every class of violation is kept (one run shows every defect); the
  // seed replays the same sequence, and each example carries its index in it.
  await fc.assert(
    fc.asyncProperty(caller, request, async (who, generated) => {
      const broken = await send(generated, who);
      if (broken.length > 0) record(generated, who, broken, index);
      index++;
    }),
    { seed: SEED, numRuns: RUNS },
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const sorted = (map: Map<string | number, number>) =>
    Object.fromEntries([...map].sort((a, b) => b[1] - a[1]));
  console.log(
    `fuzz: ${index} requests in ${seconds}s, seed ${SEED}; statuses ${JSON.stringify(sorted(stats.byStatus))}; kinds ${JSON.stringify(sorted(stats.byKind))}`,
  );
  const inRequests = [...stats.msByKind.values()].reduce((a, b) => a + b, 0);
  console.log(
    `fuzz: ${(inRequests / 1000).toFixed(1)}s in requests; by kind (s) ${[...stats.msByKind].map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}`).join(', ')}`,
  );
  const slowest = [...stats.msByRoute].sort((a, b) => b[1] - a[1]).slice(0, 6);
  console.log(
    `fuzz: slowest routes (total s) ${slowest.map(([r, ms]) => `${r} ${(ms / 1000).toFixed(1)}`).join('; ')}`,
  );
  const report = [...violations].map(([key, { count, example }]) => `${count}x ${key}\n  ${example}`);
  assert.deepEqual(
    report,
    [],
    `violations (rerun with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}):\n${report.join('\n')}`,
  );
  assert.equal(index, RUNS, 'every generated request was sent');
});

/** The ingestion routes, named with the populated tenant's account and cluster. */
function ingestionUrls(): string[] {
  return world.operations
    .filter((op) => isRawBodyRoute(op) && op.path.includes('{cluster_id}'))
    .map((op) => op.path.replace('{account_id}', world.accountId).replace('{cluster_id}', world.clusterId));
}

const admin = () => world.callers.find((c) => c.role === 'admin')?.headers ?? {};

test('ingestion bodies over 64 MiB are 413, announced or streamed without a length', {
  timeout: 120_000,
}, async () => {
  const tooLarge = Buffer.alloc(INGEST_BODY_LIMIT + 1, 0x20);
  for (const url of ingestionUrls()) {
    const announced = await world.t.request({
      method: 'POST',
      url,
      headers: { ...admin(), 'content-type': 'application/json' },
      payload: tooLarge,
    });
    assert.equal(announced.status, 413, `${url}: ${announced.text}`);
    assert.equal(announced.body.code, 'payload_too_large');
    // A chunked upload has no length to refuse up front: the server must count while reading.
    const chunks = Math.ceil(tooLarge.length / MiB);
    const streamed = await world.t.app.inject({
      method: 'POST',
      url,
      headers: { ...admin(), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from(
        Array.from({ length: chunks }, (_, i) => tooLarge.subarray(i * MiB, (i + 1) * MiB)),
      ),
    });
    const res: TestResponse = {
      status: streamed.statusCode,
      headers: streamed.headers,
      text: streamed.body,
      body: streamed.json(),
    };
    assert.deepEqual(brokenInvariants(res), []);
    assert.equal(streamed.statusCode, 413, `${url} streamed: ${streamed.body}`);
  }
});

test('gzip bombs are 413 once the decompressed bound is reached, not after inflating everything', {
  timeout: 120_000,
}, async () => {
  // Concatenated gzip members of 1 MiB of spaces each: 1 KiB on the wire per MiB inflated.
  const member = gzipSync(Buffer.alloc(MiB, 0x20), { level: 9 });
  const inflated = 1024 * MiB;
  const bomb = Buffer.concat(Array.from({ length: inflated / MiB }, () => member));
  assert.ok(bomb.length < 2 * MiB && inflated >= 4 * INGEST_DECOMPRESSED_LIMIT);
  // announced on the first route, recognised by its magic bytes alone on the others
  const announcements: Record<string, string>[] = [
    { 'content-encoding': 'gzip' },
    { 'content-type': 'application/gzip' },
  ];
  for (const [index, url] of ingestionUrls().entries()) {
    {
      const headers = announcements[Math.min(index, 1)] as Record<string, string>;
      const baseline = process.memoryUsage().arrayBuffers;
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      }, 5);
      const started = Date.now();
      const res = await world.t.request({
        method: 'POST',
        url,
        headers: { ...admin(), ...headers },
        payload: bomb,
      });
      clearInterval(sampler);
      const grownMiB = Math.round((peak - baseline) / MiB);
      console.log(
        `gzip bomb ${url.replace(/.*\/ingest/, 'ingest')} ${JSON.stringify(headers)}: ${res.status} in ${Date.now() - started} ms, buffers grew by at most ${grownMiB} MiB`,
      );
      assert.equal(res.status, 413, `${url}: ${res.text}`);
      assert.equal(res.body.code, 'payload_too_large');
      // what was buffered stays near the bound, far below what the bomb would inflate to
      assert.ok(peak - baseline < inflated / 2, `buffers grew by ${grownMiB} MiB`);
    }
  }
});
