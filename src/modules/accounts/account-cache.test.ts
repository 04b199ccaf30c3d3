import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Executor } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { createAccountCache } from './account-cache.js';
import type { AccountRow } from './repository.js';
import { createAccountService, toApiAccount } from './service.js';

/** A store of account rows that answers findAccountInTenant's statement and counts its reads. */
function accountStore(rows: AccountRow[]) {
  const store = {
    reads: 0,
    db: {
      async query<Row>(_sql: string, params?: readonly unknown[]) {
        store.reads += 1;
        const [id, tenantId] = (params ?? []) as string[];
        const found = rows.filter((r) => r.id === id?.toLowerCase() && r.tenant_id === tenantId);
        return { rows: found as Row[], rowCount: found.length };
      },
      async exec() {},
    } satisfies Executor,
  };
  return store;
}

const row = (tenantId: string, name: string): AccountRow => ({
  id: randomUUID(),
  tenant_id: tenantId,
  name,
  created_at: new Date('2026-01-02T03:04:05.678Z'),
});

const tenantAdmin = (tenantId: string): Actor => ({
  userId: randomUUID(),
  tenantId,
  accessKeyId: 'pak_test',
  keyScope: 'tenant',
  keyAccountId: null,
  assignments: [{ level: 'tenant', accountId: null, role: 'admin' }],
});

describe('requireAccount reads an account row once', () => {
  test('a second request for the same account makes no database read', async () => {
    const tenant = randomUUID();
    const account = row(tenant, 'main');
    const store = accountStore([account]);
    const accounts = createAccountService({ db: store.db });
    const actor = tenantAdmin(tenant);
    assert.deepEqual(await accounts.requireAccount(actor, account.id, 'viewer'), account);
    assert.deepEqual(await accounts.requireAccount(actor, account.id, 'admin'), account);
    assert.deepEqual(await accounts.requireAccount(actor, account.id.toUpperCase(), 'viewer'), account);
    assert.equal(store.reads, 1);
  });

  test("another tenant's caller reads the database, and gets 404, after the row was cached", async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const account = row(theirs, 'theirs');
    const store = accountStore([account]);
    const accounts = createAccountService({ db: store.db });
    await accounts.requireAccount(tenantAdmin(theirs), account.id, 'viewer');
    await assert.rejects(accounts.requireAccount(tenantAdmin(mine), account.id, 'viewer'), {
      code: 'not_found',
    });
    assert.equal(store.reads, 2);
  });

  test('"not found" is read again every time', async () => {
    const tenant = randomUUID();
    const store = accountStore([]);
    const accounts = createAccountService({ db: store.db });
    const missing = randomUUID();
    for (let i = 0; i < 3; i++) {
      await assert.rejects(accounts.requireAccount(tenantAdmin(tenant), missing, 'viewer'), {
        code: 'not_found',
      });
    }
    assert.equal(store.reads, 3);
  });

  test('the RLS-only test mode reads the database on every request, as before the cache', async () => {
    const tenant = randomUUID();
    const account = row(tenant, 'main');
    const store = accountStore([account]);
    const accounts = createAccountService({ db: store.db, unsafeDisableScoping: true });
    await accounts.requireAccount(tenantAdmin(tenant), account.id, 'viewer');
    await accounts.requireAccount(tenantAdmin(tenant), account.id, 'viewer');
    assert.equal(store.reads, 2);
  });

  test('a role too low is still a 403 on a cached row', async () => {
    const tenant = randomUUID();
    const account = row(tenant, 'main');
    const accounts = createAccountService({ db: accountStore([account]).db });
    await accounts.requireAccount(tenantAdmin(tenant), account.id, 'viewer');
    const viewer: Actor = {
      ...tenantAdmin(tenant),
      assignments: [{ level: 'account', accountId: account.id, role: 'viewer' }],
    };
    await assert.rejects(accounts.requireAccount(viewer, account.id, 'editor'), { code: 'forbidden' });
  });
});

describe('cachedApiAccount answers from the cache alone, with the decisions of requireAccount', () => {
  test('nothing before the row is cached; then its API form, with the same 404 and 403', async () => {
    const [tenant, other] = [randomUUID(), randomUUID()];
    const account = row(tenant, 'main');
    const store = accountStore([account]);
    const accounts = createAccountService({ db: store.db });
    const admin = tenantAdmin(tenant);
    assert.equal(accounts.cachedApiAccount(admin, account.id, 'viewer'), undefined, 'not read yet');
    await accounts.requireAccount(admin, account.id, 'viewer');
    const api = accounts.cachedApiAccount(admin, account.id.toUpperCase(), 'viewer');
    assert.deepEqual(api, toApiAccount(account));
    assert.equal(accounts.cachedApiAccount(admin, account.id, 'admin'), api, 'made once');
    // Another tenant never meets the entry: it asks requireAccount, which reads and says 404.
    assert.equal(accounts.cachedApiAccount(tenantAdmin(other), account.id, 'viewer'), undefined);
    const viewer: Actor = {
      ...admin,
      assignments: [{ level: 'account', accountId: account.id, role: 'viewer' }],
    };
    assert.throws(() => accounts.cachedApiAccount(viewer, account.id, 'editor'), { code: 'forbidden' });
    const stranger: Actor = {
      ...admin,
      assignments: [{ level: 'account', accountId: randomUUID(), role: 'admin' }],
    };
    assert.throws(() => accounts.cachedApiAccount(stranger, account.id, 'viewer'), { code: 'not_found' });
    assert.equal(accounts.cachedApiAccount(admin, 'not-a-uuid', 'viewer'), undefined);
    assert.equal(store.reads, 1);
  });

  test('the RLS-only test mode always goes to the database', async () => {
    const tenant = randomUUID();
    const account = row(tenant, 'main');
    const accounts = createAccountService({ db: accountStore([account]).db, unsafeDisableScoping: true });
    await accounts.requireAccount(tenantAdmin(tenant), account.id, 'viewer');
    assert.equal(accounts.cachedApiAccount(tenantAdmin(tenant), account.id, 'viewer'), undefined);
  });
});

describe('createAccountCache', () => {
  test('keeps at most maxEntries rows, dropping the least recently used first', () => {
    const tenant = randomUUID();
    const cache = createAccountCache(2);
    const [a, b, c] = [row(tenant, 'a'), row(tenant, 'b'), row(tenant, 'c')];
    cache.remember(a);
    cache.remember(b);
    assert.ok(cache.get(tenant, a.id), 'a is now the most recently used');
    cache.remember(c);
    assert.equal(cache.size, 2);
    assert.ok(cache.get(tenant, a.id));
    assert.equal(cache.get(tenant, b.id), undefined);
    assert.ok(cache.get(tenant, c.id));
  });

  test('hands out a frozen copy, so no request can change what the next one reads', () => {
    const tenant = randomUUID();
    const original = row(tenant, 'main');
    const shared = createAccountCache(10).remember(original);
    assert.ok(Object.isFrozen(shared));
    assert.throws(() => {
      (shared as { name: string }).name = 'changed';
    });
    assert.deepEqual(shared, original);
  });
});
