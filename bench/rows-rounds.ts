/**
 * The server's CPU per row it sends out, for two builds in alternating rounds on one seeded
 * PostgreSQL database that is kept between runs (the list cases and the CSV export only read).
 *
 *   seed <db> [small|medium]     creates <db> on DATABASE_URL's server, seeds it through the
 *                                ingestion API of this checkout's build (bench/seed.ts), analyzes
 *                                it, and writes its credentials to /tmp/<db>.json
 *   run <db> <distA> <distB> [--rounds n] [--seconds s] [--connections c] [--only a,b] [--csv]
 *       [--csv-only] [--prof dir]   (flags after the dist dirs)
 *                                per round and build: starts `node <dist>/server.js` on <db>, runs
 *                                each list case under autocannon (16 connections, 1 s warm-up, then
 *                                s seconds) and, with --csv, the CVE report CSV export; prints the
 *                                server's CPU ms per request (per 1,000 rows for the export),
 *                                the PostgreSQL backends' CPU, and the server's peak RSS; a dist
 *                                may carry node flags after `::` (kept-database.ts startBuild)
 *   adopt <db>                   writes /tmp/<db>.json for a store kept by `npm run bench -- --keep`
 *                                (its tenants as bench/seed.ts names them): a new key of each
 *                                tenant's user, and the measured account's first cluster by name
 *   bodies <db> <dist> <dir>     saves every list case's body (and the CSV) to <dir>, to compare
 *   drop <db>
 *
 * `run`, `adopt` and `bodies` also take a PGlite store kept by `npm run bench -- --engine pglite
 * --keep`, named by its absolute path (its credentials go to /tmp/<last part of the path>.json);
 * PostgreSQL's backend CPU is then not measured, since PGlite runs inside the server.
 *
 * Not a test; DATABASE_URL is the owner's server URL.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { createTenancyService } from '../src/modules/tenancy/service.js';
import { ApiClient } from './api-client.js';
import { backendCpu } from './backend-cpu.js';
import { buildCases } from './cases.js';
import { newlinesIn } from './export.js';
import {
  admin,
  credentialsFile,
  databaseUrl,
  isEmbeddedStore,
  keptStore,
  listCasesOf,
  readSeeded,
  startBuild,
} from './kept-database.js';
import { autocannon } from './load/autocannon-child.js';
import { bootstrapTenants, type Credentials, populateAccount } from './seed.js';
import { BENCH_SECRET, cpuMsOf, memoryOf } from './server-process.js';
import { SIZES, tenth } from './sizes.js';

const noBar = { increment() {}, start() {}, stop() {} } as never;

async function seed(name: string, sizeName: 'small' | 'medium') {
  await admin(`create database ${name}`);
  const store = keptStore(name);
  const credentials = await bootstrapTenants(store);
  const server = await startBuild(name, 'dist');
  try {
    const client = await ApiClient.login(server.baseUrl, credentials.key.id, credentials.key.secret);
    const other = await ApiClient.login(
      server.baseUrl,
      credentials.otherTenant.key.id,
      credentials.otherTenant.key.secret,
    );
    const size = SIZES[sizeName].dataset;
    await populateAccount(other, credentials.otherTenant.accountId, tenth(size), noBar);
    await populateAccount(client, credentials.neighbourAccountId, tenth(size), noBar);
    const measured = await populateAccount(client, credentials.accountId, size, noBar);
    writeFileSync(
      credentialsFile(name),
      JSON.stringify({ credentials, clusterId: measured.clusters[0]!.id }, null, 2),
    );
  } finally {
    await server.stop();
  }
  await admin('vacuum analyze', name);
  console.log(`seeded ${name}`);
}

function exportCsv(
  baseUrl: string,
  path: string,
  authorization: string,
): Promise<{ rows: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { headers: { authorization, accept: 'text/csv' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`CSV ${res.statusCode}`));
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        lines += newlinesIn(chunk);
      });
      res.on('end', () => resolve({ rows: lines - 1, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function option(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index === -1 ? undefined : args[index + 1];
}

async function run(name: string, dists: string[], args: string[]) {
  const seeded = readSeeded(name);
  const rounds = Number(option(args, '--rounds') ?? 2);
  const seconds = Number(option(args, '--seconds') ?? 5);
  const connections = Number(option(args, '--connections') ?? 16);
  const only = option(args, '--only')?.split(',') ?? [];
  const csv = args.includes('--csv');
  const prof = option(args, '--prof');
  const listsToo = !args.includes('--csv-only');
  const meter = await backendCpu(isEmbeddedStore(name) ? undefined : databaseUrl(name));
  const results: Record<string, Record<string, number[]>> = {};
  const record = (label: string, dist: string, value: number) => {
    results[label] ??= {};
    results[label]![dist] ??= [];
    results[label]![dist]!.push(Math.round(value * 100) / 100);
  };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? dists : [...dists].reverse();
    for (const dist of order) {
      const server = await startBuild(name, dist, prof ? `${prof}/${dist.replaceAll('/', '_')}` : undefined);
      try {
        const client = await ApiClient.login(
          server.baseUrl,
          seeded.credentials.key.id,
          seeded.credentials.key.secret,
        );
        if (listsToo) {
          const cases = await listCasesOf(client, seeded, only);
          for (const c of cases) {
            const url = `${server.baseUrl}${c.path}`;
            await autocannon(url, client.authorization, 1, connections);
            const cpu = cpuMsOf(server.pid);
            const db = await meter.read();
            const { requests, p99 } = await autocannon(url, client.authorization, seconds, connections);
            const serverMs = (cpuMsOf(server.pid) - cpu) / requests;
            const dbAfter = await meter.read();
            const dbMs = db !== null && dbAfter !== null ? (dbAfter - db) / requests : NaN;
            record(c.name, dist, serverMs);
            console.log(
              `${new Date().toISOString().slice(11, 19)} load ${loadavg()[0]!.toFixed(1)} r${round} ${dist} ${c.name}: server ${serverMs.toFixed(2)} ms/req, db ${dbMs.toFixed(2)}, ${Math.round(requests / seconds)} req/s, p99 ${p99}`,
            );
          }
        }
        if (csv) {
          const path = `/accounts/${seeded.credentials.accountId}/reports/inventory_cves`;
          await exportCsv(server.baseUrl, `${path}?filters=severity:low`, client.authorization);
          const cpu = cpuMsOf(server.pid);
          const db = await meter.read();
          const started = performance.now();
          const { rows } = await exportCsv(server.baseUrl, path, client.authorization);
          const ms = performance.now() - started;
          const perK = ((cpuMsOf(server.pid) - cpu) / rows) * 1000;
          const dbAfter = await meter.read();
          const dbPerK = db !== null && dbAfter !== null ? ((dbAfter - db) / rows) * 1000 : NaN;
          record('csv', dist, perK);
          console.log(
            `${new Date().toISOString().slice(11, 19)} load ${loadavg()[0]!.toFixed(1)} r${round} ${dist} csv ${rows} rows: server ${perK.toFixed(1)} ms/1000 rows, db ${dbPerK.toFixed(1)}, ${Math.round((rows / ms) * 1000)} rows/s`,
          );
        }
        // The kernel's high-water mark, never reset in this server: its peak since it started.
        const peakRss = memoryOf(server.pid).hwm_mib;
        record('peak RSS MiB', dist, peakRss);
        console.log(`r${round} ${dist} peak RSS ${peakRss.toFixed(1)} MiB`);
      } finally {
        await server.stop();
      }
    }
  }
  await meter.close();
  console.log(JSON.stringify(results, null, 1));
  for (const [label, byDist] of Object.entries(results)) {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    console.log(
      `${label}: ${Object.entries(byDist)
        .map(
          ([dist, values]) =>
            `${dist} median ${median(values)} [${Math.min(...values)}..${Math.max(...values)}]`,
        )
        .join(' | ')}`,
    );
  }
}

async function bodies(name: string, dist: string, dir: string) {
  const seeded = readSeeded(name);
  mkdirSync(dir, { recursive: true });
  const server = await startBuild(name, dist);
  try {
    const client = await ApiClient.login(
      server.baseUrl,
      seeded.credentials.key.id,
      seeded.credentials.key.secret,
    );
    const cases = await buildCases(client, {
      accountId: seeded.credentials.accountId,
      clusterId: seeded.clusterId,
      key: seeded.credentials.key,
    });
    for (const c of cases) {
      if (c.kind === 'auth') continue;
      const res = await fetch(`${server.baseUrl}${c.path}`, {
        headers: { authorization: client.authorization },
      });
      writeFileSync(`${dir}/${c.name.replaceAll(' ', '_')}.json`, Buffer.from(await res.arrayBuffer()));
    }
    for (const [label, query] of [
      ['csv', ''],
      ['csv_columns', '?columns=associated_images;cve_name;epss_score;fixable&sort=epss_score:desc'],
    ] as const) {
      const res = await fetch(
        `${server.baseUrl}/accounts/${seeded.credentials.accountId}/reports/inventory_cves${query}`,
        { headers: { authorization: client.authorization, accept: 'text/csv' } },
      );
      writeFileSync(`${dir}/${label}.csv`, Buffer.from(await res.arrayBuffer()));
    }
  } finally {
    await server.stop();
  }
}

/** A kept bench store's tenants and a new key for each, in the shape `seed` writes. */
async function adopt(name: string) {
  const db = await keptStore(name).open();
  try {
    const tenancy = createTenancyService({ db, pepper: BENCH_SECRET });
    const one = async <T>(sql: string, params: unknown[]) => {
      const { rows } = await db.query<T>(sql, params);
      if (rows.length !== 1) throw new Error(`${name} is not a store of npm run bench: ${sql}`);
      return rows[0]!;
    };
    const tenant = (tenantName: string) =>
      one<{ tenant_id: string; user_id: string }>(
        `select t.id as tenant_id, u.id as user_id from tenants t join users u on u.tenant_id = t.id
          where t.name = $1 and u.name = 'bench'`,
        [tenantName],
      );
    const account = (tenantId: string, accountName: string) =>
      one<{ id: string }>('select id from accounts where tenant_id = $1 and name = $2', [
        tenantId,
        accountName,
      ]);
    const keyOf = async (owner: { tenant_id: string; user_id: string }) => {
      const key = await tenancy.createAccessKey({
        tenantId: owner.tenant_id,
        userId: owner.user_id,
        name: 'rows-rounds',
        scope: 'tenant',
        accountId: null,
      });
      return { id: key.access_key_id, secret: key.secret_key };
    };
    const measured = await tenant('bench-measured');
    const other = await tenant('bench-other');
    const accountId = (await account(measured.tenant_id, 'measured')).id;
    const cluster = await one<{ id: string }>(
      'select id from clusters where account_id = $1 order by name limit 1',
      [accountId],
    );
    const credentials: Credentials = {
      tenantId: measured.tenant_id,
      accountId,
      neighbourAccountId: (await account(measured.tenant_id, 'neighbour')).id,
      key: await keyOf(measured),
      otherTenant: { accountId: (await account(other.tenant_id, 'other')).id, key: await keyOf(other) },
    };
    writeFileSync(credentialsFile(name), JSON.stringify({ credentials, clusterId: cluster.id }, null, 2));
    console.log(`wrote ${credentialsFile(name)}`);
  } finally {
    await db.close();
  }
}

const [command, name, ...rest] = process.argv.slice(2);
if (!name) throw new Error('usage: see the comment at the top');
if (command === 'seed') await seed(name, (rest[0] as 'small' | 'medium') ?? 'medium');
else if (command === 'run')
  await run(
    name,
    rest.filter((arg, i) => !arg.startsWith('--') && !rest[i - 1]?.startsWith('--')),
    rest,
  );
else if (command === 'adopt') await adopt(name);
else if (command === 'bodies') await bodies(name, rest[0]!, rest[1]!);
else if (command === 'drop') await admin(`drop database if exists ${name} with (force)`);
