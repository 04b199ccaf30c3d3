/**
 * Suite 4, embedded store: the real server on a PGlite DATA_DIR is `kill -9`ed while clients push,
 * then restarted on the same directory. The restart must take over the dead process's lock
 * (data-dir-lock.ts) and recover the store; every acknowledged push is then stored exactly once.
 *
 * A kill is not a power loss: what the embedded store does not promise is in docs/security.md.
 * FAULTS_SEED replays a run. It stops after FAULTS_PGLITE_CYCLES kills (default 5) or once
 * FAULTS_BUDGET_SECONDS (default 70) have passed, but never before 3: a restart costs a PGlite
 * start (several seconds), hence fewer cycles than on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { bootstrap, connectTenant } from './client.js';
import { assertExactlyOnce } from './exactly-once.js';
import { createPushDriver, type PushDriver } from './push-driver.js';
import { envCount, faultSeed, seededRandom } from './pushes.js';
import { killAllServers, startServer } from './server-process.js';

const onPostgres = Boolean(process.env.DATABASE_URL);
/** Kills run even past the time budget: fewer would prove little. */
const MIN_CYCLES = 3;
const dir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'posture-faults-'));
let runningDriver: PushDriver | undefined;

after(async () => {
  await runningDriver?.abandon();
  await killAllServers();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const skip = onPostgres
  ? 'embedded store only: runs when DATABASE_URL is unset (see kill-during-ingest.test.ts)'
  : false;

test('kill -9 during ingestion on the embedded store loses no acknowledged push', { skip }, async (t) => {
  const seed = faultSeed();
  const cycles = envCount('FAULTS_PGLITE_CYCLES', 5);
  const budgetMs = envCount('FAULTS_BUDGET_SECONDS', 70) * 1000;
  t.diagnostic(
    `seed ${seed} (FAULTS_SEED), up to ${cycles} kill cycles (FAULTS_PGLITE_CYCLES) ` +
      `within ${budgetMs / 1000} s (FAULTS_BUDGET_SECONDS), at least ${MIN_CYCLES}`,
  );
  const random = seededRandom(seed);
  const started = Date.now();
  const dataDir = join(dir as string, 'data');
  const store = { DATA_DIR: dataDir };

  // The CLI creates the store and closes it (one process at a time on a DATA_DIR).
  const boot = await bootstrap(store);
  let server = await startServer(store);
  const tenant = await connectTenant(server.url, boot);
  const driver = createPushDriver({ seed, tenant, workers: 3, timeoutMs: 60_000, pauseMs: 50 });
  runningDriver = driver;
  driver.start();

  const inFlightAtKill: number[] = [];
  const ackedAtKill: number[] = [];
  const boots: number[] = [server.bootMs];
  let kills = 0;
  while (kills < cycles && (kills < MIN_CYCLES || Date.now() - started < budgetMs)) {
    driver.setTarget(server.url);
    driver.setTakingNew(true);
    // Kill after acknowledged work (the first pushes on a fresh PGlite are slow), at a random
    // moment of the pushing that follows.
    await driver.waitForAcks(2, 120_000);
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 600)));
    inFlightAtKill.push(driver.inFlight());
    ackedAtKill.push(driver.stats().acked);
    await server.kill9();
    kills++;
    driver.setTakingNew(false);
    driver.setTarget(undefined);
    assert.ok(existsSync(`${dataDir}.lock`), 'the killed server left its lock behind');
    // The restart takes the dead process's lock over and recovers the store.
    server = await startServer(store);
    boots.push(server.bootMs);
  }
  driver.setTarget(server.url);
  await driver.finish();
  assert.deepEqual(driver.defects, [], 'no push was refused or left without an answer');
  await assertExactlyOnce(server.url, tenant, driver.states);
  assert.equal(await server.stop(), 0, `clean shutdown after the crashes:\n${server.output()}`);

  const stats = driver.stats();
  t.diagnostic(
    `${kills} kills, acknowledged before each kill: ${ackedAtKill.join(' ')}, in flight: ${inFlightAtKill.join(' ')}; ` +
      `pushes ${stats.pushes} (attempts ${stats.attempts}): acked first try ${stats.ackedFirstTry}, after a kill ` +
      `${stats.retriedCommitted} replayed (committed, answer lost) + ${stats.retriedStored} stored on retry; ` +
      `boot ${Math.min(...boots)}-${Math.max(...boots)} ms; ${Math.round((Date.now() - started) / 1000)} s`,
  );
  assert.ok(stats.retriedCommitted + stats.retriedStored > 0, 'some kill caught a push in flight');
});
