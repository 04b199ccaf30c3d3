/**
 * Logins' sessions written in groups (session-writer.ts): one statement for the logins that
 * arrive while a group is written, each login with its own answer, against the real database.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { TEST_PEPPER } from '../../../test/support/harness.js';
import type { Executor } from '../../db/database.js';
import { createTenancyService } from '../tenancy/service.js';
import type { LoginKey, NewSession } from './repository.js';
import { createSessionWriter } from './session-writer.js';

let database: TestDatabase;
let tenancy: ReturnType<typeof createTenancyService>;
before(async () => {
  database = await createTestDatabase();
  tenancy = createTenancyService({ db: database.owner, pepper: TEST_PEPPER });
});
after(() => database.close());

/** The application's handle, recording how many logins each statement wrote. */
let groups: number[];
/** A token hash (hex) whose statement fails, as a statement can for one login's sake. */
let poisoned: string | undefined;
const recording: Executor = {
  query(sql, params) {
    if (sql.includes('posture_open_session')) {
      // a lone login's statement takes its token hash, a group's their hex texts
      const first = params?.[0];
      const hashes = Buffer.isBuffer(first) ? [first.toString('hex')] : (first as string[]);
      groups.push(hashes.length);
      if (poisoned && hashes.includes(poisoned)) return Promise.reject(new Error('statement failed'));
    }
    return database.db.query(sql, params);
  },
  exec: (sql) => database.db.exec(sql),
};

async function newKey(): Promise<LoginKey> {
  const boot = await tenancy.bootstrap({ tenant: `tenant-${Math.random()}`, account: 'main' });
  return {
    id: boot.access_key_id,
    user_id: boot.user_id,
    tenant_id: boot.tenant_id,
    secret_hash: Buffer.alloc(32),
  };
}

const sessionOf = (key: LoginKey): NewSession => ({
  tokenHash: randomBytes(32),
  key,
  expiresAt: new Date(Date.now() + 60_000),
});

async function storedKeyOf(session: NewSession): Promise<string | undefined> {
  const { rows } = await database.owner.query<{ access_key_id: string }>(
    'select access_key_id from sessions where token_hash = $1',
    [session.tokenHash],
  );
  return rows[0]?.access_key_id;
}

let key: LoginKey;
beforeEach(async () => {
  key = await newKey();
  groups = [];
  poisoned = undefined;
});

describe('session writer', () => {
  test('a lone login is written at once; those arriving meanwhile are written together next', async () => {
    const writer = createSessionWriter(recording);
    const sessions = Array.from({ length: 20 }, () => sessionOf(key));
    const answers = await Promise.all(sessions.map((session) => writer.write(session)));
    assert.deepEqual(answers, Array(20).fill(true));
    assert.deepEqual(groups, [1, 19]);
    for (const session of sessions) assert.equal(await storedKeyOf(session), key.id);
  });

  test('a group holds at most the given number of logins', async () => {
    const writer = createSessionWriter(recording, 2);
    const answers = await Promise.all(Array.from({ length: 5 }, () => writer.write(sessionOf(key))));
    assert.deepEqual(answers, Array(5).fill(true));
    assert.deepEqual(groups, [1, 2, 2]);
  });

  test("a login whose key was revoked since it was read is refused without its neighbours'", async () => {
    const revoked = await newKey();
    await database.owner.query('update access_keys set revoked_at = now() where id = $1', [revoked.id]);
    const writer = createSessionWriter(recording);
    const sessions = [sessionOf(key), sessionOf(key), sessionOf(revoked), sessionOf(key)];
    const answers = await Promise.all(sessions.map((session) => writer.write(session)));
    assert.deepEqual(answers, [true, true, false, true]);
    assert.deepEqual(groups, [1, 3]);
    assert.equal(await storedKeyOf(sessions[2]!), undefined, 'no session for the revoked key');
    assert.equal(await storedKeyOf(sessions[3]!), key.id);
  });

  test('a lone login whose key was revoked is refused', async () => {
    await database.owner.query('update access_keys set revoked_at = now() where id = $1', [key.id]);
    const writer = createSessionWriter(recording);
    const session = sessionOf(key);
    assert.equal(await writer.write(session), false);
    assert.deepEqual(groups, [1]);
    assert.equal(await storedKeyOf(session), undefined);
  });

  test('a login naming another user than its key has is refused, alone or in a group', async () => {
    const other = await newKey();
    const writer = createSessionWriter(recording);
    const wrongUser = () => sessionOf({ ...key, user_id: other.user_id });
    const sessions = [wrongUser(), sessionOf(key), wrongUser()];
    const answers = await Promise.all(sessions.map((session) => writer.write(session)));
    assert.deepEqual(answers, [false, true, false]);
    assert.deepEqual(groups, [1, 2]);
    assert.equal(await storedKeyOf(sessions[0]!), undefined);
    assert.equal(await storedKeyOf(sessions[2]!), undefined);
  });

  test('a group whose statement fails is written again one login at a time', async () => {
    const writer = createSessionWriter(recording);
    const sessions = [sessionOf(key), sessionOf(key), sessionOf(key), sessionOf(key)];
    poisoned = sessions[2]!.tokenHash.toString('hex');
    const answers = await Promise.allSettled(sessions.map((session) => writer.write(session)));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(groups, [1, 3, 1, 1, 1]);
    assert.equal(await storedKeyOf(sessions[1]!), key.id);
    assert.equal(await storedKeyOf(sessions[2]!), undefined);
    assert.equal(await storedKeyOf(sessions[3]!), key.id);
    // and the writer goes on
    const next = sessionOf(key);
    assert.equal(await writer.write(next), true);
    assert.equal(await storedKeyOf(next), key.id);
  });
});
