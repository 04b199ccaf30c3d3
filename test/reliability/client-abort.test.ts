/**
 * Suite 4, clients that hang up: against the real server process (on either engine), clients cut
 * their connection in the middle of a large ingestion upload, right after sending a whole push
 * (before its answer), and in the middle of a response being written. The process must survive
 * all of it with its database connections intact; a cut upload stores nothing, and a push whose
 * answer was lost is stored exactly once when retried with its Idempotency-Key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bootstrap, connectTenant, sendPush, type Tenant } from './client.js';
import { assertExactlyOnce } from './exactly-once.js';
import type { PushState } from './push-driver.js';
import { faultSeed, makePush } from './pushes.js';
import { killAllServers, type ServerProcess, startServer } from './server-process.js';

let database: TestDatabase | undefined;
const dir = mkdtempSync(join(tmpdir(), 'posture-abort-'));

after(async () => {
  await killAllServers();
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

function ingestPath(tenant: Tenant) {
  return `/accounts/${tenant.accountId}/clusters/${tenant.clusterId}/ingest/kubernetes`;
}

/** Announces `declared` bytes (or chunked when undefined), sends `sent` of them, then cuts the connection. */
function abortUpload(server: ServerProcess, tenant: Tenant, declared: number | undefined, sent: number) {
  return new Promise<void>((resolve) => {
    const req = request(`${server.url}${ingestPath(tenant)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.token}`,
        'content-type': 'application/json',
        'idempotency-key': `cut-upload-${declared}-${sent}`,
        ...(declared === undefined
          ? { 'transfer-encoding': 'chunked' }
          : { 'content-length': String(declared) }),
      },
    });
    req.on('error', () => resolve()); // the cut itself
    req.on('response', (res) => {
      res.resume(); // an early refusal is fine too: the point is that the process survives
      resolve();
    });
    const prefix = '{"kind":"List","apiVersion":"v1","items":[';
    req.write(prefix + ' '.repeat(Math.max(0, sent - prefix.length)));
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 100);
  });
}

/**
 * Sends a whole push and cuts the connection `delayMs` after the last byte, reading nothing: its
 * answer is lost whether or not the server got to the push before the cut.
 */
function loseAnswer(server: ServerProcess, tenant: Tenant, state: PushState, delayMs: number) {
  return new Promise<void>((resolve) => {
    const req = request(`${server.url}${ingestPath(tenant)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.token}`,
        'content-type': 'application/json',
        'idempotency-key': state.push.idempotencyKey,
      },
    });
    req.on('error', () => resolve());
    state.attempts++;
    req.end(state.push.body, () =>
      setTimeout(() => {
        req.destroy();
        resolve();
      }, delayMs),
    );
  });
}

/** Starts reading a response and cuts the connection after its first chunk. */
function abortResponse(server: ServerProcess, tenant: Tenant, path: string) {
  return new Promise<boolean>((resolve) => {
    const req = request(`${server.url}${path}`, { headers: { authorization: `Bearer ${tenant.token}` } });
    req.on('error', () => resolve(false));
    req.on('response', (res) => {
      res.once('data', () => {
        req.destroy();
        resolve(true);
      });
      res.on('error', () => undefined);
    });
    req.end();
  });
}

async function openStore(): Promise<Record<string, string>> {
  if (!process.env.DATABASE_URL) return { DATA_DIR: join(dir, 'data') };
  database = await createTestDatabase();
  return { DATABASE_URL: database.url as string, DATABASE_MIGRATION_URL: database.ownerUrl as string };
}

test('clients cutting the connection mid-upload, before the answer or mid-response never crash the server', async (t) => {
  const started = Date.now();
  const store = await openStore();
  const boot = await bootstrap(store); // before the server: the embedded store takes one process
  const server = await startServer(store);
  const tenant = await connectTenant(server.url, boot);

  // Large uploads cut at several points, with a declared length and chunked.
  for (const [declared, sent] of [
    [16 * MiB, 0],
    [16 * MiB, 64 * 1024],
    [16 * MiB, 2 * MiB],
    [undefined, MiB],
    [undefined, 4 * MiB],
  ] as const) {
    await abortUpload(server, tenant, declared, sent);
  }

  // Whole pushes whose answers are lost, then retried with their keys until acknowledged.
  const delaysMs = [0, 0, 10, 50, 200, 1000, 3000];
  const states: PushState[] = delaysMs.map((_, index) => ({
    push: makePush(faultSeed() + 1, index),
    attempts: 0,
  }));
  await Promise.all(states.map((state, index) => loseAnswer(server, tenant, state, delaysMs[index] ?? 0)));
  for (const state of states) {
    for (let tries = 0; !state.ack && tries < 50; tries++) {
      const outcome = await sendPush(server.url, tenant, state.push, 60_000);
      state.attempts++;
      if (outcome.kind === 'acked') {
        state.ack = outcome.body;
        state.ackReplayed = outcome.replayed;
      } else {
        assert.equal(outcome.kind, 'retry', JSON.stringify(outcome));
        await sleep(100);
      }
    }
  }

  // Responses cut after their first chunk: a large document, a full page of records.
  let cut = 0;
  for (let round = 0; round < 4; round++) {
    if (await abortResponse(server, tenant, '/openapi.json')) cut++;
    const page = `/accounts/${tenant.accountId}/resources?cluster_id=${tenant.clusterId}&page_size=1000&with_payload=true`;
    if (await abortResponse(server, tenant, page)) cut++;
  }

  await sleep(300);
  assert.equal(server.exited(), false, `the server exited:\n${server.output()}`);
  // More database-backed requests than the pool has connections: none was leaked by a cut.
  for (let n = 0; n < 25; n++) {
    const res = await fetch(`${server.url}/accounts/${tenant.accountId}/clusters`, {
      headers: { authorization: `Bearer ${tenant.token}` },
      signal: AbortSignal.timeout(30_000),
    });
    assert.equal(res.status, 200, await res.text());
  }
  // Cut uploads stored nothing; the lost answers' pushes are there exactly once.
  await assertExactlyOnce(server.url, tenant, states);
  assert.equal(server.exited(), false, `the server exited:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /uncaught|unhandled/i);

  const replayed = states.filter((state) => state.ackReplayed).length;
  t.diagnostic(
    `5 cut uploads, ${states.length} lost answers (${replayed} committed before the cut, replayed; ` +
      `${states.length - replayed} stored on retry), ${cut} cut responses; ${Math.round((Date.now() - started) / 1000)} s`,
  );
});
