/**
 * `posture` as a real process, the way `npx posture` runs it: bin/posture.js loads the build or,
 * in a fresh clone without dist/, the TypeScript source; exit codes reach the shell; a key made
 * by a separate process authenticates against the app opened on the same store afterwards.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type CliRun, type CliStore, createCliStore } from './cli-store.js';

const BIN = fileURLToPath(new URL('../../bin/posture.js', import.meta.url));

let store: CliStore;
before(async () => {
  store = await createCliStore();
});
after(() => store.close());

function posture(...argv: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    // Only the store's variables: a DATABASE_URL of the test runner must not leak into the child.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...store.env };
    const child = spawn(process.execPath, [BIN, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

test('posture --help exits 0 and lists the commands', async () => {
  const run = await posture('--help');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^Usage: posture /);
  for (const command of ['bootstrap', 'accounts', 'users', 'roles', 'keys', 'migrate']) {
    assert.match(run.stdout, new RegExp(`\\n  ${command} `));
  }
});

test('a usage error reaches the shell as exit 2 with one line on stderr', async () => {
  const run = await posture('roles', 'assign', '--role', 'boss');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^posture: [^\n]+\n$/);
  assert.equal(run.stdout, '');
});

test('posture bootstrap --json from a separate process makes a key the app accepts', async () => {
  const run = await posture('bootstrap', '--tenant', 'process-tenant', '--account', 'main', '--json');
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  const boot = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(boot).sort(), [
    'access_key_id',
    'account_id',
    'secret_key',
    'tenant_id',
    'user_id',
  ]);
  // The process has exited, so its lock on the data directory is gone and the app can open the store.
  const { status } = await store.withApp((api) => api.authenticate(boot.access_key_id, boot.secret_key));
  assert.equal(status, 200);
});
