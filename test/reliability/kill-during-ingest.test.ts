/**
 * Suite 4, PostgreSQL: `kill -9` of the real server while clients push, N times; the clients retry
 * every unacknowledged push with its Idempotency-Key until it is acknowledged. Afterwards every
 * acknowledged push is stored exactly once (exactly-once.ts) and the idempotency records agree.
 *
 * The replacement server is started while the current one still serves (a second process on the
 * same database, as behind a load balancer), so a cycle costs one boot rather than a boot plus the
 * pushing window; the kill itself is still a SIGKILL at a random moment of the pushing.
 *
 * FAULTS_SEED (default 20261122) replays a run. It stops after FAULTS_KILL_CYCLES kills (default 20)
 * or once FAULTS_BUDGET_SECONDS (default 70) have passed, whichever comes first, but never before 5:
 * a boot costs 4-5 s on a quiet 2-core machine and three times that on a loaded one (docs/security.md).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bootstrap, connectTenant } from './client.js';
import { assertExactlyOnce } from './exactly-once.js';
import { createPushDriver, type PushDriver } from './push-driver.js';
import { envCount, faultSeed, seededRandom } from './pushes.js';
import { killAllServers, type ServerProcess, startServer } from './server-process.js';

const postgres = process.env.DATABASE_URL;
/** Cycles run even past the time budget: fewer would prove little. */
const MIN_CYCLES = 5;
const STANDBYS = 2;
let database: TestDatabase | undefined;
let driver: PushDriver | undefined;

after(async () => {
  // A failed test leaves the workers retrying against servers that are gone: stop them, or they
  // hold the process until the runner's timeout.
  await driver?.abandon();
  await killAllServers();
  await database?.close();
});

test('kill -9 during ingestion: every acknowledged push is stored exactly once (PostgreSQL)', {
  skip: postgres ? false : 'needs PostgreSQL: set DATABASE_URL (the PGlite variant is pglite-kill.test.ts)',
}, async (t) => {
  const seed = faultSeed();
  const cycles = envCount('FAULTS_KILL_CYCLES', 20);
  const budgetMs = envCount('FAULTS_BUDGET_SECONDS', 70) * 1000;
  t.diagnostic(
    `seed ${seed} (FAULTS_SEED), up to ${cycles} kill cycles (FAULTS_KILL_CYCLES) ` +
      `within ${budgetMs / 1000} s (FAULTS_BUDGET_SECONDS), at least ${MIN_CYCLES}`,
  );
  const random = seededRandom(seed);
  const started = Date.now();

  database = await createTestDatabase();
  const store = { DATABASE_URL: database.url ?? '', DATABASE_MIGRATION_URL: database.ownerUrl ?? '' };
  let active: ServerProcess = await startServer(store);
  const tenant = await connectTenant(active.url, await bootstrap(store));
  driver = createPushDriver({ seed, tenant, workers: 4, timeoutMs: 30_000, pauseMs: 100 });
  driver.setTarget(active.url);
  driver.setTakingNew(true);
  driver.start();

  const inFlightAtKill: number[] = [];
  const boots: number[] = [];
  // Replacements boot ahead, a few at once: on two cores that halves the wait for the next one.
  const standbys: Promise<ServerProcess>[] = [];
  let kills = 0;
  while (kills < cycles) {
    if (kills >= MIN_CYCLES && Date.now() - started > budgetMs) break;
    while (standbys.length < Math.min(STANDBYS, cycles - kills)) {
      const booting = startServer(store);
      booting.catch(() => undefined); // awaited below; a failed boot fails the test there
      standbys.push(booting);
    }
    const standby = await (standbys.shift() as Promise<ServerProcess>);
    boots.push(standby.bootMs);
    // A random moment while the workers push: from at once to 800 ms after the standby is up.
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 800)));
    inFlightAtKill.push(driver.inFlight());
    await active.kill9();
    kills++;
    driver.setTarget(standby.url);
    active = standby;
  }
  await driver.finish();
  assert.deepEqual(driver.defects, [], 'no push was refused or left without an answer');

  await assertExactlyOnce(active.url, tenant, driver.states);
  // The idempotency records agree: one per push, each holding the acknowledged answer.
  // The owner's handle: row-level security does not hide the rows being counted.
  const { rows } = await database.owner.query<{ key: string; response: unknown }>(
    'select key, response from idempotency_keys where account_id = $1',
    [tenant.accountId],
  );
  assert.equal(rows.length, driver.states.length, 'one idempotency record per push');
  const ackByKey = new Map(driver.states.map((state) => [state.push.idempotencyKey, state.ack]));
  for (const row of rows) assert.deepEqual(row.response, ackByKey.get(row.key), `record of ${row.key}`);
  assert.equal(active.exited(), false);

  const stats = driver.stats();
  t.diagnostic(
    `${kills} kills, in flight at each kill: ${inFlightAtKill.join(' ')}; pushes ${stats.pushes} ` +
      `(attempts ${stats.attempts}): acked first try ${stats.ackedFirstTry}, after a kill ` +
      `${stats.retriedCommitted} replayed (committed, answer lost) + ${stats.retriedStored} stored on retry; ` +
      `boot ${Math.min(...boots)}-${Math.max(...boots)} ms; ${Math.round((Date.now() - started) / 1000)} s`,
  );
  assert.ok(stats.retriedCommitted + stats.retriedStored > 0, 'some kill caught a push in flight');
});
