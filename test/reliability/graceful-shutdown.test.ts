/**
 * SIGTERM under load: the real server stops accepting, lets the requests in flight finish and
 * exits 0, without a line of error output (a request that reached the database after the pool
 * was closed would log `Cannot use a pool after calling end`). Every push it acknowledged before
 * the signal is stored: a restart on the same store finds each exactly once.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bootstrap, connectTenant } from './client.js';
import { assertExactlyOnce } from './exactly-once.js';
import { createPushDriver, type PushDriver } from './push-driver.js';
import { faultSeed } from './pushes.js';
import { type ReadLoad, startReadLoad } from './read-load.js';
import { killAllServers, startServer } from './server-process.js';

let database: TestDatabase | undefined;
let runningLoad: ReadLoad | undefined;
let runningPushes: PushDriver | undefined;

after(async () => {
  await runningLoad?.stop();
  await runningPushes?.abandon();
  await killAllServers();
  await database?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('SIGTERM under load: in-flight requests finish, nothing is logged as an error, exit 0', {
  skip: process.env.DATABASE_URL ? false : 'the embedded store is covered by the server test',
}, async () => {
  database = await createTestDatabase();
  const store = { DATABASE_URL: database.url as string, DATABASE_MIGRATION_URL: database.ownerUrl as string };
  const server = await startServer(store);
  const tenant = await connectTenant(server.url, await bootstrap(store));

  const load = startReadLoad(server.url, tenant, { clients: 4, timeoutMs: 15_000, pauseMs: 0 });
  runningLoad = load;
  const pushes = createPushDriver({ seed: faultSeed(), tenant, workers: 2, timeoutMs: 15_000, pauseMs: 0 });
  runningPushes = pushes;
  pushes.setTarget(server.url);
  pushes.setTakingNew(true);
  pushes.start();
  load.setPhase('before');
  await sleep(2000);

  load.setPhase('shutdown');
  const stopped = server.stop();
  // Pushes cut by the shutdown wait for the restarted server rather than spend their retries.
  pushes.setTarget(undefined);
  const exitCode = await stopped;
  await load.stop();
  pushes.setTakingNew(false);
  const errorLines = server
    .output()
    .split('\n')
    .filter((line) => /"level":(50|60)|Error|Cannot use a pool/.test(line));
  assert.deepEqual(errorLines, [], `the server logged errors while shutting down:\n${server.output()}`);
  assert.equal(exitCode, 0);
  // A request that reached the draining server was answered in full, never with a body outside
  // the API's error envelope; a connection refused once it stopped listening is the client's to retry.
  const answeredWrongly = load.violations.filter((violation) => !/connection error/.test(violation));
  const outcomes = [...load.outcomes].map(([phase, counts]) => [phase, Object.fromEntries(counts)]);
  assert.deepEqual(answeredWrongly, [], JSON.stringify(outcomes));

  // Pushes cut by the shutdown are retried against a restarted server; acknowledged ones must not repeat.
  const restarted = await startServer(store);
  pushes.setTarget(restarted.url);
  await pushes.finish();
  await assertExactlyOnce(restarted.url, tenant, pushes.states);
  assert.deepEqual(pushes.defects, [], 'no push got an answer other than an acknowledgement or a refusal');
  await restarted.stop();
});
