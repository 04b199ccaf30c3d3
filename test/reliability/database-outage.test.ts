/**
 * Suite 4, PostgreSQL outages under load: the real server keeps serving reads and pushes while the
 * test terminates its backends (`pg_terminate_backend`) several times, then refuses every
 * connection to its database for a few seconds (`ALLOW_CONNECTIONS false`, which the owner of the
 * throwaway database may set) and terminates the backends again. The process must never exit;
 * meanwhile every answer is a 2xx or 503 `unavailable` (never another 5xx, never a hang), and
 * once the database accepts connections again the server answers 200 within 5 seconds. Pushes
 * retried through it all are stored exactly once.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bootstrap, connectTenant } from './client.js';
import { assertExactlyOnce } from './exactly-once.js';
import { createPushDriver, type PushDriver } from './push-driver.js';
import { faultSeed } from './pushes.js';
import { describeOutcomes, type ReadLoad, startReadLoad } from './read-load.js';
import { killAllServers, startServer } from './server-process.js';

const postgres = process.env.DATABASE_URL;
let database: TestDatabase | undefined;
let admin: pg.Client | undefined;
let databaseName = '';
let runningLoad: ReadLoad | undefined;
let runningPushes: PushDriver | undefined;

after(async () => {
  await runningLoad?.stop();
  await runningPushes?.abandon();
  await killAllServers();
  // Whatever failed, the database must accept connections again to be dropped.
  await admin?.query(`alter database ${databaseName} allow_connections true`).catch(() => undefined);
  await admin?.end();
  await database?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The server's connections (the admin client sits in another database: ALTER DATABASE needs that).
 * Only client backends: an autovacuum worker on the database runs as the bootstrap superuser, and
 * a non-superuser terminating it fails the whole statement.
 */
const terminateBackends = async () =>
  (
    await (admin as pg.Client).query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      [databaseName],
    )
  ).rowCount ?? 0;

test('database outages under load: the server answers 503 unavailable, never exits, and recovers within 5 s', {
  skip: postgres ? false : 'needs PostgreSQL: set DATABASE_URL (an outage of the embedded store is a crash)',
}, async (t) => {
  const started = Date.now();
  database = await createTestDatabase();
  const url = database.url as string;
  databaseName = new URL(url).pathname.slice(1);
  const store = { DATABASE_URL: url, DATABASE_MIGRATION_URL: database.ownerUrl as string };
  const server = await startServer(store);
  const tenant = await connectTenant(server.url, await bootstrap(store));
  admin = new pg.Client({ connectionString: postgres });
  await admin.connect();

  const load = startReadLoad(server.url, tenant, { clients: 3, timeoutMs: 15_000, pauseMs: 20 });
  runningLoad = load;
  const pushes = createPushDriver({ seed: faultSeed(), tenant, workers: 1, timeoutMs: 15_000, pauseMs: 50 });
  runningPushes = pushes;
  pushes.setTarget(server.url);
  pushes.setTakingNew(true);
  pushes.start();

  load.setPhase('steady');
  await sleep(1500);
  load.setPhase('terminations');
  let terminated = 0;
  for (let round = 0; round < 5; round++) {
    terminated += await terminateBackends();
    await sleep(400);
  }
  load.setPhase('outage');
  await admin.query(`alter database ${databaseName} allow_connections false`);
  terminated += await terminateBackends();
  await sleep(3000);
  await admin.query(`alter database ${databaseName} allow_connections true`);

  // Recovery: the first authenticated 200 after the database is back.
  load.setPhase('recovery');
  const backAt = Date.now();
  let recoveredMs = -1;
  while (Date.now() - backAt < 10_000) {
    assert.equal(server.exited(), false, `the server exited:\n${server.output()}`);
    const res = await fetch(`${server.url}/accounts/${tenant.accountId}/clusters`, {
      headers: { authorization: `Bearer ${tenant.token}` },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined); // a cut connection is tallied by the load; here only the first 200 counts
    await res?.arrayBuffer();
    if (res?.status === 200) {
      recoveredMs = Date.now() - backAt;
      break;
    }
    await sleep(50);
  }
  load.setPhase('after');
  await sleep(1000);
  await load.stop();
  await pushes.finish();

  const outcomes = describeOutcomes(load.outcomes);
  t.diagnostic(`backends terminated: ${terminated}; recovered in ${recoveredMs} ms; ${outcomes}`);
  assert.equal(server.exited(), false, `the server exited:\n${server.output()}`);
  assert.deepEqual(load.violations.slice(0, 20), [], outcomes);
  assert.deepEqual(pushes.defects, [], 'pushes: only 2xx or 503 unavailable');
  assert.ok(recoveredMs >= 0 && recoveredMs <= 5000, `back to 200 within 5 s (took ${recoveredMs} ms)`);
  assert.ok((load.outcomes.get('outage')?.get('503 unavailable') ?? 0) > 0, 'the outage was seen (503s)');
  assert.equal(load.outcomes.get('after')?.size, 1, `only 2xx once recovered: ${outcomes}`);
  await assertExactlyOnce(server.url, tenant, pushes.states);
  const stats = pushes.stats();
  t.diagnostic(
    `pushes ${stats.pushes} (attempts ${stats.attempts}), retried ${stats.retriedCommitted + stats.retriedStored}; ` +
      `${Math.round((Date.now() - started) / 1000)} s`,
  );
});
