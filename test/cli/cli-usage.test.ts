/**
 * The command line itself: every command has --help, and every mistake in a command line is one
 * `posture: ` line on stderr with exit 2, found before the store is opened. Failures of the store
 * (unreachable, misconfigured) are one line too, with exit 1.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { captureCli, failedWith, SOME_UUID, succeeded } from './cli-store.js';

// A store that must never be created: every command line below is wrong before it gets that far.
const dir = mkdtempSync(join(tmpdir(), 'posture-cli-usage-'));
const env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: '' };
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (...argv: string[]) => captureCli(argv, env);

test('every command answers --help on stdout with exit 0', async () => {
  const commands = [
    [],
    ['bootstrap'],
    ['accounts'],
    ['accounts', 'create'],
    ['users'],
    ['users', 'create'],
    ['users', 'lock'],
    ['users', 'unlock'],
    ['roles'],
    ['roles', 'assign'],
    ['keys'],
    ['keys', 'create'],
    ['keys', 'revoke'],
    ['migrate'],
  ];
  for (const command of commands) {
    const help = await run(...command, '--help');
    succeeded(help);
    assert.match(help.stdout, new RegExp(`^Usage: posture${command.map((word) => ` ${word}`).join('')} `));
  }
});

test('usage errors are one line on stderr, exit 2, and never open the store', async () => {
  const T = `--tenant=${SOME_UUID}`;
  const U = `--user=${SOME_UUID}`;
  const cases: [string[], RegExp][] = [
    [[], /missing command for 'posture'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['users'], /missing command for 'posture users'/],
    [['keys', 'rotate'], /unknown command 'rotate' for 'posture keys'/],
    [['migrate', '--frob'], /unknown option '--frob'/],
    [['bootstrap', '--account', 'a'], /required option '--tenant <name>' not specified/],
    [['bootstrap', '--tenant', 'a', '--account', 'b', '--email', 'nope'], /--email.*email address/],
    [['accounts', 'create', '--tenant', 'not-a-uuid', '--name', 'x'], /--tenant.*must be a UUID/],
    [['users', 'create', T, '--name', '   '], /--name.*must not be empty/],
    [['users', 'lock', T], /required option '--user <user_id>'/],
    [['roles', 'assign', T, U, '--role', 'boss', '--tenant-level'], /--role.*one of viewer, editor, admin/],
    [['roles', 'assign', T, U, '--role', 'admin'], /one of --account <account_id> or --tenant-level/],
    [
      ['roles', 'assign', T, U, '--role', 'admin', '--tenant-level', `--account=${SOME_UUID}`],
      /cannot be used/,
    ],
    [['keys', 'create', T, U, '--name', 'k', '--expires', 'tomorrow'], /--expires.*RFC 3339/],
    [['keys', 'create', T, U, '--name', 'k', '--expires', '2001-01-01T00:00:00Z'], /in the future/],
    [['keys', 'revoke', T, '--key', 'nope'], /--key.*access key id/],
  ];
  for (const [argv, message] of cases) failedWith(await run(...argv), 2, message);
  assert.equal(existsSync(env.DATA_DIR), false, 'a usage error created the data directory');
});

test('an unreachable database and an invalid configuration are one line, exit 1', async () => {
  failedWith(
    await captureCli(['migrate'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }),
    1,
    /^posture: cannot migrate the database: connect ECONNREFUSED 127\.0\.0\.1:1$/m,
  );
  const invalid = await captureCli(['migrate'], {
    ...env,
    POSTURE_SECRET: 'short',
    DATABASE_POOL_SIZE: 'many',
  });
  failedWith(invalid, 1, /^posture: invalid configuration: /);
  assert.match(invalid.stderr, /DATABASE_POOL_SIZE: must be integer \(got "many"\); POSTURE_SECRET: /);
});
