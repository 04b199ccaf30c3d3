/**
 * The login key cache (docs/auth.md, "Login key cache"): a second login with the same key skips
 * the key lookup, and nothing about the key's authority is taken from memory. Every change below
 * is written behind the service's back, as another Posture process (the CLI) would, with no
 * announcement: the statement that writes the session must refuse it all the same.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { TEST_PEPPER } from '../../../test/support/harness.js';
import type { Database } from '../../db/database.js';
import { withScope, withSystemScope } from '../../db/scope.js';
import { hashToken } from '../../security/secrets.js';
import { createTenancyService } from '../tenancy/service.js';
import { createLoginThrottle } from './login-throttle.js';
import { findSession, insertSessions } from './repository.js';
import { type AuthService, createAuthService } from './service.js';

let database: TestDatabase;
let tenancy: ReturnType<typeof createTenancyService>;
/** Key lookups (the statement that reads secret_hash) made by the service under test. */
let keyReads = 0;

/** The application's handle, counting the key lookups that go through it. */
function counting(db: Database): Database {
  return {
    engine: db.engine,
    query(sql, params) {
      if (sql.includes('secret_hash')) keyReads += 1;
      return db.query(sql, params);
    },
    exec: (sql) => db.exec(sql),
    transaction: (work) => db.transaction(work),
    vacuum: (table) => db.vacuum(table),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}

before(async () => {
  database = await createTestDatabase();
  tenancy = createTenancyService({ db: database.owner, pepper: TEST_PEPPER });
});
after(() => database.close());

let auth: AuthService;
let key: { tenantId: string; userId: string; id: string; secret: string };
beforeEach(async () => {
  auth = createAuthService({
    db: counting(database.db),
    pepper: TEST_PEPPER,
    sessionTtlSeconds: 60,
    throttle: createLoginThrottle(100, 300),
  });
  const boot = await tenancy.bootstrap({ tenant: `tenant-${Math.random()}`, account: 'main' });
  key = { tenantId: boot.tenant_id, userId: boot.user_id, id: boot.access_key_id, secret: boot.secret_key };
  keyReads = 0;
});

const login = (secret = key.secret) =>
  withSystemScope(() => auth.authenticate({ accessKeyId: key.id, secretKey: secret }, '10.0.0.1'));
const refused = (secret = key.secret) => assert.rejects(login(secret), { code: 'invalid_credentials' });

async function sessionsOfKey(): Promise<number> {
  const { rows } = await database.owner.query<{ n: number }>(
    'select count(*)::int as n from sessions where access_key_id = $1',
    [key.id],
  );
  return Number(rows[0]?.n);
}

describe('login key cache', () => {
  test('the second login with a key reads no key; each issues its own session', async () => {
    const first = await login();
    const second = await login();
    assert.equal(keyReads, 1);
    assert.notEqual(first.token, second.token);
    assert.equal(await sessionsOfKey(), 2);
  });

  test('a wrong secret for a cached key reads the key, as an unknown id does, and is refused', async () => {
    await login();
    await refused('psk_wrong');
    assert.equal(keyReads, 2);
    await assert.rejects(
      withSystemScope(() =>
        auth.authenticate({ accessKeyId: 'pak_unknown', secretKey: key.secret }, '10.0.0.1'),
      ),
      { code: 'invalid_credentials' },
    );
    assert.equal(keyReads, 3);
    assert.equal(await sessionsOfKey(), 1);
  });

  for (const [change, sql] of [
    ['revoked', 'update access_keys set revoked_at = now() where id = $1'],
    ['expired', `update access_keys set expires_at = now() - interval '1 second' where id = $1`],
    [
      'its user locked',
      'update users set locked = true where id = (select user_id from access_keys where id = $1)',
    ],
  ] as const) {
    test(`a cached key ${change} by another process is refused at the next login, and then read again`, async () => {
      await login();
      await database.owner.query(sql, [key.id]);
      await refused();
      assert.equal(keyReads, 1, 'refused by the session write, not by a fresh read');
      assert.equal(await sessionsOfKey(), 1, 'no session written');
      await refused();
      assert.equal(keyReads, 2, 'the refused key left the cache');
    });
  }

  test("the session write is bound by row-level security: in another tenant's scope it writes nothing", async (t) => {
    if (database.db.engine !== 'postgres') {
      t.skip("PGlite connects as the tables' owner, whom the policies do not bind");
      return;
    }
    const other = await tenancy.bootstrap({ tenant: `other-${Math.random()}`, account: 'main' });
    const write = async () => {
      const tokenHash = randomBytes(32);
      const written = await insertSessions(database.db, [
        {
          tokenHash,
          key: { id: key.id, user_id: key.userId, tenant_id: key.tenantId, secret_hash: Buffer.alloc(32) },
          expiresAt: new Date(Date.now() + 60_000),
        },
      ]);
      return written.has(tokenHash.toString('hex'));
    };
    const inOtherTenant = await withScope(
      { kind: 'tenant', tenantId: other.tenant_id, accountIds: 'all' },
      write,
    );
    assert.equal(inOtherTenant, false);
    assert.equal(await sessionsOfKey(), 0);
    assert.equal(await withSystemScope(write), true);
    assert.equal(await sessionsOfKey(), 1);
  });

  test("the session lookup is bound by row-level security: another tenant's scope finds nothing", async (t) => {
    if (database.db.engine !== 'postgres') {
      t.skip("PGlite connects as the tables' owner, whom the policies do not bind");
      return;
    }
    const { token } = await login();
    const tokenHash = hashToken(token);
    const other = await tenancy.bootstrap({ tenant: `other-${Math.random()}`, account: 'main' });
    const inOtherTenant = await withScope(
      { kind: 'tenant', tenantId: other.tenant_id, accountIds: 'all' },
      () => findSession(database.db, tokenHash),
    );
    assert.equal(inOtherTenant, undefined);
    const found = await withSystemScope(() => findSession(database.db, tokenHash));
    assert.equal(found?.access_key_id, key.id);
    assert.equal(found?.usable, true);
    assert.equal(found?.expired, false);
    assert.ok(
      (found?.valid_for_ms ?? 0) > 50_000 && (found?.valid_for_ms ?? 0) <= 60_000,
      'the TTL of this test',
    );
    assert.deepEqual(found?.assignments, [{ level: 'tenant', account_id: null, role: 'admin' }]);
  });
});
