/**
 * The server keeps each identity's response bytes between identities pages (row-bytes-cache.ts),
 * by the version of everything its text is made from that may change: the identity's row, which
 * the recompute rewrites whenever it writes one of its risks (repository.ts, TEXT_VERSION;
 * plan.ts). These tests change them behind the service's back, as another server's ingestion or
 * a migration would, and check that the page follows: every entry must be what the single
 * identity's route (#16, which reads its texts every time) answers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { withSystemScope } from '../../src/db/scope.js';
import type { Actor } from '../../src/http/actor.js';
import { createRowBytesCache, type RowBytesCache } from '../../src/http/row-bytes-cache.js';
import type { AccountService } from '../../src/modules/accounts/service.js';
import { recomputeClusterIdentities } from '../../src/modules/identities/recompute.js';
import { createIdentityService } from '../../src/modules/identities/service.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { recordingDb } from '../support/recording-db.js';
import { pushSampleWithRbac } from './support.js';

let t: TestApp;
let tenant: TestTenant;
let cluster: { id: string; name: string };

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  cluster = await pushSampleWithRbac(t, tenant, 'prod');
});
after(() => t.close());

interface Identity {
  id: string;
  last_used_at: string | null;
  risks: { id: string; last_detected_at: string }[];
}

async function getJson<T>(url: string): Promise<T> {
  const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
  assert.equal(res.status, 200, res.text);
  return res.body as T;
}

const PAGE = () => `/accounts/${tenant.accountId}/identities?page_size=100`;

/** Page 1 of every identity, checked entry by entry against #16. */
async function pageAgreeingWithDetail(): Promise<Identity[]> {
  const { entries } = await getJson<{ entries: Identity[] }>(PAGE());
  for (const entry of entries) {
    assert.deepEqual(entry, await getJson(`/accounts/${tenant.accountId}/identities/${entry.id}`));
  }
  return entries;
}

test('a page is served from the kept bytes, and follows every row an identity is made from', async () => {
  const cache = t.app.services.identityTextCache;
  const first = await pageAgreeingWithDetail();
  const kept = cache.size;
  assert.equal(kept.entries, first.length, 'every identity of the page is kept');
  assert.deepEqual(await pageAgreeingWithDetail(), first);
  assert.deepEqual(cache.size, kept, 'a second read of the same page keeps nothing new');

  const risky = first.find((identity) => identity.risks.length > 0);
  assert.ok(risky, 'the sample has an identity with risks');
  const scope = [tenant.accountId, risky.id];

  // Another server's recompute, a day later: every open risk is detected again, the identities
  // are rewritten with them.
  const later = new Date(Date.parse(risky.risks[0]!.last_detected_at) + 86_400_000);
  await t.db.transaction((tx) =>
    recomputeClusterIdentities(
      tx,
      { accountId: tenant.accountId, clusterId: cluster.id, clusterName: cluster.name },
      later,
    ),
  );
  let now = (await pageAgreeingWithDetail()).find((identity) => identity.id === risky.id)!;
  assert.equal(
    now.risks.find((risk) => risk.id === risky.risks[0]!.id)?.last_detected_at,
    later.toISOString(),
  );

  // The identity's own row.
  await t.db.query(
    `update identities set last_used_at = '2031-02-03T04:05:06Z' where account_id = $1 and id = $2`,
    scope,
  );
  now = (await pageAgreeingWithDetail()).find((identity) => identity.id === risky.id)!;
  assert.equal(now.last_used_at, '2031-02-03T04:05:06.000Z');
});

/** Page 1 as the route reads it, through a service on `db` keeping its bytes in `texts`. */
async function pageThrough(db: Database, texts: RowBytesCache): Promise<string> {
  const service = createIdentityService({
    db,
    accounts: { requireAccount: async () => ({ id: tenant.accountId }) } as unknown as AccountService,
    texts,
  });
  const parts = await withSystemScope(() =>
    service.list({} as Actor, tenant.accountId, { page: { page: 1, pageSize: 100 } }, () =>
      assert.fail('every row here has its text'),
    ),
  );
  return parts
    .map((part) =>
      typeof part === 'string' ? part : Buffer.isBuffer(part) ? part.toString() : part.join(''),
    )
    .join('');
}

const VERSIONS_READ = 'as text_version';
const TEXTS_READ = 'i.assigned_roles_json, i.access_json';
const count = (statements: string[], marker: string) =>
  statements.filter((sql) => sql.includes(marker)).length;

test('a page of kept identities reads no text; without the cache a page reads its texts with its rows', async () => {
  const expected = (await t.request({ method: 'GET', url: PAGE(), token: tenant.adminToken })).text;
  const texts = createRowBytesCache({ maxBytes: 16 * 1024 * 1024 });
  const statements: string[] = [];
  assert.equal(await pageThrough(recordingDb(t.db, statements), texts), expected);
  assert.equal(count(statements, VERSIONS_READ), 1);
  assert.equal(count(statements, TEXTS_READ), 1, 'the texts of the identities not kept yet');

  statements.length = 0;
  assert.equal(await pageThrough(recordingDb(t.db, statements), texts), expected);
  assert.equal(count(statements, VERSIONS_READ), 1);
  assert.equal(count(statements, TEXTS_READ), 0, 'every identity was kept');
  assert.ok(
    !statements.some((sql) => sql.includes('kind, raw from cluster_resources')),
    'nor any raw object',
  );

  statements.length = 0;
  const off = createRowBytesCache({ maxBytes: 0 });
  assert.equal(await pageThrough(recordingDb(t.db, statements), off), expected);
  assert.equal(count(statements, VERSIONS_READ), 0, 'IDENTITY_TEXT_CACHE_MB=0 reads the page once');
  assert.equal(count(statements, TEXTS_READ), 1);
});

test('an identity deleted between the page read and its text read: the page is read again, whole', async () => {
  const { entries } = await getJson<{ entries: Identity[] }>(PAGE());
  const gone = entries.at(-1)!.id;
  const statements: string[] = [];
  const racing = recordingDb(t.db, statements, async (sql) => {
    if (sql.includes('i.id = any($2::uuid[])')) {
      await t.db.query('delete from identities where account_id = $1 and id = $2', [tenant.accountId, gone]);
    }
  });
  const body = JSON.parse(await pageThrough(racing, createRowBytesCache({ maxBytes: 16 * 1024 * 1024 })));
  assert.equal(count(statements, VERSIONS_READ), 1);
  assert.equal(count(statements, TEXTS_READ), 2, 'the missing identities, then the whole page');
  assert.deepEqual(
    body.entries.map((identity: Identity) => identity.id),
    entries.slice(0, -1).map((identity) => identity.id),
  );
  assert.equal(body.total_count, entries.length - 1);
  assert.deepEqual(body, await getJson(PAGE()));
});
