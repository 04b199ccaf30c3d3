/**
 * Credentials (issue 10, suite 3): tampered, truncated, extended, expired and revoked session
 * tokens and access keys are refused in 10,000 fast-check tries; a brute force on authenticate
 * hits 429 with Retry-After; a secret key appears in no answer but the creating one, in no log
 * line and nowhere in a dump of every table of the database.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { hashToken } from '../../src/security/secrets.js';
import {
  createTenant,
  startTestApp,
  type TestApp,
  type TestTenant,
  type TestUser,
} from '../support/harness.js';

const SEED = Number(process.env.CREDENTIALS_SEED ?? 20261122);
const RUNS = Number(process.env.CREDENTIALS_RUNS ?? 10_000);

/** Ways to spoil a credential: each keeps it close to the real one, which is what an attacker has. */
const spoil = fc.oneof(
  fc.record({ kind: fc.constant('flip'), at: fc.nat(), by: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant('truncate'), at: fc.nat() }),
  fc.record({ kind: fc.constant('extend'), extra: fc.string({ minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('case'), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace'), with: fc.string({ maxLength: 80 }) }),
);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

interface Spoil {
  kind: string;
  at?: number;
  by?: number;
  extra?: string;
  with?: string;
}

function spoiled(value: string, how: Spoil): string {
  const at = (how.at ?? 0) % value.length;
  switch (how.kind) {
    case 'flip': {
      const index = ALPHABET.indexOf(value[at] ?? 'A');
      return value.slice(0, at) + ALPHABET[(index + (how.by ?? 1)) % ALPHABET.length] + value.slice(at + 1);
    }
    case 'truncate':
      return value.slice(0, at);
    case 'extend':
      return value + (how.extra ?? 'x');
    case 'case': {
      const char = value[at] ?? '';
      const other = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
      return value.slice(0, at) + (other === char ? 'Z' : other) + value.slice(at + 1);
    }
    default:
      return how.with ?? '';
  }
}

describe('credentials', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let live: TestUser;
  let expired: TestUser;
  let revoked: TestUser;
  let expiredKey: { id: string; secret: string };
  before(async () => {
    // Every inject comes from 127.0.0.1: a generous failure limit keeps the throttle out of the tries.
    t = await startTestApp({ LOGIN_MAX_FAILURES: 1_000_000 });
    tenant = await createTenant(t);
    live = await tenant.addUser([{ level: 'tenant', role: 'admin' }]);
    expired = await tenant.addUser([{ level: 'tenant', role: 'admin' }]);
    await t.db.query(`update sessions set expires_at = now() - interval '1 second' where token_hash = $1`, [
      hashToken(expired.token),
    ]);
    revoked = await tenant.addUser([{ level: 'tenant', role: 'admin' }]);
    await t.tenancy.revokeAccessKey({ tenantId: tenant.tenantId, accessKeyId: revoked.accessKeyId });
    const key = await tenant.addUser([{ level: 'tenant', role: 'admin' }]);
    await t.db.query(`update access_keys set expires_at = now() - interval '1 second' where id = $1`, [
      key.accessKeyId,
    ]);
    expiredKey = { id: key.accessKeyId, secret: key.secretKey };
  });
  after(() => t?.close());

  test(`${RUNS} spoiled, expired and revoked tokens and keys are refused (seed ${SEED})`, {
    timeout: 240_000,
  }, async () => {
    const outcomes = new Map<string, number>();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.nat(99), spoil, async (choice, how) => {
        let status: number;
        let code: string;
        let label: string;
        if (choice < 60) {
          // a session token: spoiled live one, or an expired / revoked one as is
          const [token, expect] =
            choice < 50
              ? [spoiled(live.token, how), 'unauthenticated']
              : choice < 55
                ? [expired.token, 'token_expired']
                : [revoked.token, 'unauthenticated'];
          const useCookie = choice % 2 === 0;
          const headers: Record<string, string> = useCookie
            ? { cookie: `ory_kratos_session=${encodeURIComponent(token)}` }
            : { authorization: `Bearer ${token}` };
          // a spoil that changed nothing (or only whitespace around it, which HTTP trims) is the real token
          if (token.trim() === live.token) return;
          const res = await t.request({ method: 'GET', url: `/accounts/${tenant.accountId}`, headers });
          status = res.status;
          code = res.body?.code;
          label = `token ${JSON.stringify(token)} -> ${status} ${code}`;
          assert.ok(status === 401 && code === expect, label);
        } else {
          // an access key: spoiled secret or id, or the right secret of a revoked or expired key
          const [id, secret] =
            choice < 80
              ? [live.accessKeyId, spoiled(live.secretKey, how)]
              : choice < 90
                ? [spoiled(live.accessKeyId, how), live.secretKey]
                : choice < 95
                  ? [revoked.accessKeyId, revoked.secretKey]
                  : [expiredKey.id, expiredKey.secret];
          if (id === live.accessKeyId && secret === live.secretKey) return;
          const res = await t.request({
            method: 'POST',
            url: '/authentication/authenticate',
            body: { access_key_id: id, secret_key: secret },
          });
          status = res.status;
          code = res.body?.code;
          label = `key ${JSON.stringify(id)} / ${JSON.stringify(secret)} -> ${status} ${code}`;
          // an empty or oversized field is a malformed body (400); everything else the same 401
          assert.ok(
            (status === 401 && code === 'invalid_credentials') ||
              (status === 400 && code === 'validation_failed'),
            label,
          );
          assert.ok(!res.text.includes(live.secretKey), 'no answer repeats a secret');
        }
        outcomes.set(`${status} ${code}`, (outcomes.get(`${status} ${code}`) ?? 0) + 1);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
    );
    console.log(
      `credentials: ${RUNS} tries in ${((Date.now() - started) / 1000).toFixed(1)}s, seed ${SEED}: ${JSON.stringify(Object.fromEntries(outcomes))}`,
    );
    // the real credentials still work: the refusals above were about the spoiling, not a broken setup
    assert.equal((await t.request({ method: 'GET', url: '/accounts', token: live.token })).status, 200);
  });

  test('the secret key is in the creating answer only, and nowhere in the database', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/accounts/access_keys',
      token: tenant.adminToken,
      body: { name: 'dumped', scope: 'tenant' },
    });
    assert.equal(created.status, 201, created.text);
    const secret: string = created.body.secret_key;
    const login = await t.request({
      method: 'POST',
      url: '/authentication/authenticate',
      body: { access_key_id: created.body.id, secret_key: secret },
    });
    assert.equal(login.status, 200);
    const token: string = login.body.token;
    for (const url of [
      '/accounts/access_keys?limit=1000',
      `/accounts/access_keys/${created.body.id}`,
      `/accounts/${tenant.accountId}/users`,
    ]) {
      const res = await t.request({ method: 'GET', url, token });
      assert.equal(res.status, 200, url);
      assert.ok(!res.text.includes(secret) && !res.text.includes(token), `${url} shows a credential`);
    }
    const { rows: tables } = await t.db.query<{ name: string }>(
      `select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables
        where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'`,
    );
    assert.ok(tables.length > 10, 'the dump covers the schema');
    let rowsSeen = 0;
    const rowsOf = new Map<string, number>();
    for (const { name } of tables) {
      const { rows } = await t.db.query<{ row: string }>(`select t::text as row from ${name} t`);
      rowsSeen += rows.length;
      rowsOf.set(name.replace(/^.*\./, ''), rows.length);
      for (const { row } of rows) {
        assert.ok(!row.includes(secret), `${name} holds the secret key`);
        assert.ok(!row.includes(token), `${name} holds the session token in clear`);
        // hashes are stored as bytea: their hex text must not be a plain SHA-256 of the secret either
      }
    }
    assert.ok(rowsSeen > 0);
    // The dump sees the credentials' own tables (row-level security hides nothing from t.db, the
    // owner's handle): a dump that read nothing would prove nothing.
    for (const table of ['access_keys', 'sessions', 'users']) {
      assert.ok((rowsOf.get(table) ?? 0) > 0, `the dump read no row of ${table}`);
    }
  });
});

describe('brute force on authenticate', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ LOGIN_MAX_FAILURES: 5 });
  });
  after(() => t?.close());

  test('guessing secrets hits 429 with Retry-After, and the right secret is refused meanwhile', async () => {
    const tenant = await createTenant(t);
    const victim = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const statuses: number[] = [];
    let throttled: Awaited<ReturnType<TestApp['request']>> | undefined;
    for (let guess = 0; guess < 50 && !throttled; guess++) {
      const res = await t.request({
        method: 'POST',
        url: '/authentication/authenticate',
        body: { access_key_id: victim.accessKeyId, secret_key: `psk_guess${guess}` },
      });
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
    }
    assert.ok(throttled, `no 429 after ${statuses.length} guesses`);
    assert.equal(statuses.length, 6, 'the sixth guess is throttled');
    assert.equal(throttled.body.code, 'rate_limited');
    const retryAfter = Number(throttled.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter > 0,
      `Retry-After ${throttled.headers['retry-after']}`,
    );
    const right = await t.request({
      method: 'POST',
      url: '/authentication/authenticate',
      body: { access_key_id: victim.accessKeyId, secret_key: victim.secretKey },
    });
    assert.equal(right.status, 429, 'the right secret is refused while throttled');
  });
});

test('no log line carries a secret key or a session token', () => {
  const probe = fileURLToPath(new URL('./log-probe.ts', import.meta.url));
  const run = spawnSync(process.execPath, ['--import', 'tsx', probe], {
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'test' },
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(run.status, 0, run.stderr);
  const { secret, token } = JSON.parse(run.stderr.trim().split('\n').at(-1) ?? '{}');
  assert.match(secret, /^psk_/);
  const lines = run.stdout.split('\n').filter((line) => line.startsWith('{'));
  assert.ok(lines.length > 20, `the probe logged (${lines.length} lines)`);
  assert.ok(
    lines.some((line) => line.includes('/authentication/authenticate')),
    'requests are logged',
  );
  const leaking = lines.filter(
    (line) => line.includes(secret) || line.includes(token) || line.includes(secret.slice(4)),
  );
  assert.deepEqual(leaking, [], 'log lines with a credential');
});
