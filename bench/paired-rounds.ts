/**
 * Two server builds compared on one kept PostgreSQL store, both running at once and loaded in
 * turn: each list case runs as short slices alternating between the builds (A B, B A, A B, ...),
 * so that whatever the machine does over minutes falls on both alike, and neither build is a
 * freshly started process when it is measured.
 *
 *   paired-rounds.ts <db> <distA> <distB> [--slices n] [--seconds s] [--connections c] [--only a,b]
 *
 * `<db>` is a store kept by `npm run bench -- --keep` and adopted by `bench/rows-rounds.ts adopt`
 * (or seeded by its `seed`). `--only tiny` measures the tiny response (`GET /accounts/{id}`)
 * instead of the lists. The slices come in two halves: the servers started A then B, then
 * restarted B then A, since which was started first moved the rates. Per case it prints each
 * slice, then per build the mean requests a second and the median server and PostgreSQL CPU ms a
 * request, and B against A: the median of the slice pairs' ratios with their range. rows-rounds.ts
 * restarts each build for every round; on this 2-core machine four such rounds of two copies of
 * one build differed by 30% in their medians (docs/performance.md, "Fix 54"). Here two copies
 * agree within about 4%, but now and then one server process of a pair spends half again the CPU
 * a request of the other on the same work: trust PostgreSQL's ms a request over the rates, and run
 * both orders (A B, then B A) before believing a difference of 10% or less.
 *
 * PostgreSQL only: two servers cannot open one embedded store. Not a test; DATABASE_URL is the
 * owner's server URL.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ApiClient } from './api-client.js';
import { backendCpu } from './backend-cpu.js';
import { databaseUrl, isEmbeddedStore, listCasesOf, readSeeded, startBuild } from './kept-database.js';
import { autocannon } from './load/autocannon-child.js';
import { cpuMsOf } from './server-process.js';

interface Slice {
  requestsPerSecond: number;
  serverMs: number;
  dbMs: number;
}

/** The pause before each slice, so that one slice's tail (its last responses, a collection) stays out of the next. */
const SETTLE_MS = 500;

/** Each build's warm-up per case: its first second still ran at two-thirds of the rate after it. */
const WARMUP_SECONDS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const round2 = (value: number) => Math.round(value * 100) / 100;

const { positionals, values: flags } = parseArgs({
  allowPositionals: true,
  options: {
    slices: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    only: { type: 'string', default: '' },
  },
});
const [name, distA, distB] = positionals;
if (!name || !distA || !distB) throw new Error('usage: see the comment at the top');
if (isEmbeddedStore(name)) throw new Error('paired rounds need PostgreSQL: two servers cannot share PGlite');
const slices = Number(flags.slices);
const seconds = Number(flags.seconds);
const connections = Number(flags.connections);
const only = flags.only.split(',').filter(Boolean);

const seeded = readSeeded(name);
const labels = [distA, distB];
const meter = await backendCpu(databaseUrl(name));
/** Per case, per build (0: A, 1: B), every slice measured. */
const measured = new Map<string, Slice[][]>();
try {
  // Two halves, the servers started A then B, then B then A: the server started second ran up to
  // a third slower than the first in runs of two copies of one build, for no reason of its own.
  for (const startOrder of [
    [0, 1],
    [1, 0],
  ]) {
    await half(startOrder, Math.ceil(slices / 2));
  }
} finally {
  await meter.close();
}
for (const [caseName, [a, b]] of measured) {
  for (const [index, results] of [a!, b!].entries()) {
    console.log(
      `${caseName} | ${labels[index]} | ${Math.round(mean(results.map((r) => r.requestsPerSecond)))} req/s | server ${round2(median(results.map((r) => r.serverMs)))} ms | db ${round2(median(results.map((r) => r.dbMs)))} ms`,
    );
  }
  const ratios = b!.map((slice, i) => slice.requestsPerSecond / a![i]!.requestsPerSecond);
  console.log(
    `${caseName} | ${distB} / ${distA} req/s: median ${round2(median(ratios))} [${round2(Math.min(...ratios))}..${round2(Math.max(...ratios))}]`,
  );
}

/** Both builds started in `startOrder`, then every case in `count` slices of each, alternating. */
async function half(startOrder: number[], count: number) {
  const servers: Awaited<ReturnType<typeof startBuild>>[] = [];
  try {
    for (const index of startOrder) servers[index] = await startBuild(name!, labels[index]!);
    // Each build its own session, taken from it, as a client of that server would.
    const clients = await Promise.all(
      servers.map((server) =>
        ApiClient.login(server.baseUrl, seeded.credentials.key.id, seeded.credentials.key.secret),
      ),
    );
    const cases = await listCasesOf(clients[0]!, seeded, only);
    const measure = async (index: number, path: string): Promise<Slice> => {
      const server = servers[index]!;
      const cpu = cpuMsOf(server.pid);
      const db = await meter.read();
      const { requests } = await autocannon(
        `${server.baseUrl}${path}`,
        clients[index]!.authorization,
        seconds,
        connections,
      );
      const dbAfter = await meter.read();
      return {
        requestsPerSecond: requests / seconds,
        serverMs: (cpuMsOf(server.pid) - cpu) / requests,
        dbMs: db !== null && dbAfter !== null ? (dbAfter - db) / requests : Number.NaN,
      };
    };
    for (const c of cases) {
      for (const index of startOrder) {
        await autocannon(
          `${servers[index]!.baseUrl}${c.path}`,
          clients[index]!.authorization,
          WARMUP_SECONDS,
        );
      }
      const slicesOf = measured.get(c.name) ?? [[], []];
      measured.set(c.name, slicesOf);
      for (let slice = 0; slice < count; slice++) {
        // Each half opens with the build it started first, so with an odd count each build still
        // goes first in half the pairs.
        for (const index of slice % 2 === 0 ? startOrder : [...startOrder].reverse()) {
          await delay(SETTLE_MS);
          const result = await measure(index, c.path);
          slicesOf[index]!.push(result);
          console.log(
            `${new Date().toISOString().slice(11, 19)} ${c.name} started ${startOrder.join('')} s${slice} ${labels[index]}: ${Math.round(result.requestsPerSecond)} req/s, server ${result.serverMs.toFixed(2)} ms/req, db ${result.dbMs.toFixed(2)}`,
          );
        }
      }
    }
  } finally {
    for (const server of servers) await server?.stop();
  }
}
