/**
 * The real server process, end to end: boot on an empty embedded store, demo tenant printed once,
 * the printed key works over real HTTP, SIGTERM shuts down cleanly, a restart keeps the data and
 * does not print a key again.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { serverBundle } from '../support/server-bundle.js';

const dir = mkdtempSync(join(tmpdir(), 'posture-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function startServer(): Promise<Running> {
  const child = spawn(process.execPath, [await serverBundle()], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: join(dir, 'data'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DEMO: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const check = () => {
      const match = /"msg":"Posture is listening"/.test(output)
        ? /"url":"(http:\/\/[^"]+)"/.exec(output)
        : null;
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { child, url, output: () => output };
}

async function stop(server: Running): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => server.child.on('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  return exited;
}

test('a fresh start creates the demo tenant, its key works, and shutdown is clean', async () => {
  const server = await startServer();
  const keyId = /access_key_id: (pak_\S+)/.exec(server.output())?.[1];
  const secret = /secret_key: +(psk_\S+)/.exec(server.output())?.[1];
  const accountId = /account_id: +(\S+)/.exec(server.output())?.[1];
  assert.ok(keyId && secret && accountId, server.output());

  const auth = await fetch(`${server.url}/authentication/authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: JSON.stringify({ access_key_id: keyId, secret_key: secret }),
  });
  assert.equal(auth.status, 200);
  const { token } = (await auth.json()) as { token: string };
  const account = await fetch(`${server.url}/accounts/${accountId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(account.status, 200);
  assert.equal(((await account.json()) as { id: string }).id, accountId);

  const logLines = server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'));
  assert.ok(logLines.length > 0);
  for (const line of logLines) {
    assert.ok(!line.includes(secret), 'the secret key never reaches a log line');
    assert.ok(!line.includes(token), 'the session token never reaches a log line');
  }
  assert.equal(await stop(server), 0);

  const again = await startServer();
  assert.ok(!again.output().includes('access_key_id:'), 'the demo key is printed only on the first start');
  const reauth = await fetch(`${again.url}/authentication/authenticate`, {
    method: 'POST',
    body: JSON.stringify({ access_key_id: keyId, secret_key: secret }),
  });
  assert.equal(reauth.status, 200, 'data and the generated secret survive a restart');
  assert.equal(await stop(again), 0);
});

test('an invalid configuration stops the server with one clear message', async () => {
  const child = spawn(process.execPath, [await serverBundle()], {
    env: { ...process.env, PORT: 'eighty', DATA_DIR: ':memory:' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 1);
  assert.match(stderr, /PORT/);
});
