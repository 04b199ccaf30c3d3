/**
 * The finding groups list is assembled from each group's bytes, which the server keeps by the
 * group row's version (row-bytes-cache.ts, versionedPage; docs/performance.md "Fix 75"). Whether
 * a group's bytes came from the cache, from rows read by id, or from the list read whole, the body
 * must be the JSON of the groups as the table holds them; the harness also validates every body
 * against /openapi.json. A status change or a new evaluation is a new row version, and is read
 * again; another tenant's lists never hold this one's groups.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { withSystemScope } from '../../src/db/scope.js';
import type { Actor } from '../../src/http/actor.js';
import { createRowBytesCache, type RowBytesCache } from '../../src/http/row-bytes-cache.js';
import type { AccountService } from '../../src/modules/accounts/service.js';
import { toApiGroup } from '../../src/modules/findings/mapping.js';
import type { GroupRow } from '../../src/modules/findings/repository.js';
import { createFindingService } from '../../src/modules/findings/service.js';
import { createCluster, pushSampleCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { recordingDb } from '../support/recording-db.js';
import { pushScan, SCAN_FILES, scanText } from '../vulnerabilities/support.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);
  // Both tenants push the same objects and scans: misconfiguration and vulnerability groups alike.
  for (const owner of [tenant, other]) {
    const cluster = await createCluster(t, owner.adminToken, owner.accountId, 'prod');
    await pushSampleCluster(t, owner.adminToken, owner.accountId, cluster.id);
    for (const file of SCAN_FILES) {
      const res = await pushScan(
        t,
        { token: owner.adminToken, accountId: owner.accountId, clusterId: cluster.id },
        scanText(file),
      );
      assert.equal(res.status, 200, res.text);
    }
  }
});
after(() => t.close());

/** The list's queries: unfiltered, short, filtered, OR within a key, a window, and one matching nothing. */
const QUERIES: { url: string; where: string; limit: number }[] = [
  { url: '', where: '', limit: 100 },
  { url: '?limit=3', where: '', limit: 3 },
  {
    url: '?filters=severity:critical,severity:high',
    where: "and severity in ('critical', 'high')",
    limit: 100,
  },
  { url: '?filters=type:vulnerability&limit=7', where: "and type = 'vulnerability'", limit: 7 },
  { url: '?from=2000-01-01T00:00:00Z', where: "and last_seen >= '2000-01-01T00:00:00Z'", limit: 100 },
  { url: '?filters=status:ignored', where: "and status = 'ignored'", limit: 100 },
];

const urlOf = (owner: TestTenant, query: string) =>
  `/accounts/${owner.accountId}/unified_findings/groups${query}`;

async function bodies(owner: TestTenant = tenant): Promise<string[]> {
  const texts: string[] = [];
  for (const { url } of QUERIES) {
    const res = await t.request({ method: 'GET', url: urlOf(owner, url), token: owner.adminToken });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    texts.push(res.text);
  }
  return texts;
}

/** The oracle: each query's groups read from the table, in the list's order, as the API maps them. */
async function expected(owner: TestTenant = tenant): Promise<string[]> {
  const texts: string[] = [];
  for (const { where, limit } of QUERIES) {
    const { rows } = await withSystemScope(() =>
      t.db.query<GroupRow>(
        `select * from finding_groups where account_id = $1 ${where} order by last_seen desc, id desc limit ${limit}`,
        [owner.accountId],
      ),
    );
    texts.push(JSON.stringify(rows.map(toApiGroup)));
  }
  return texts;
}

const accounts = () =>
  ({ requireAccount: async () => ({ id: tenant.accountId }) }) as unknown as AccountService;

/** The unfiltered list through the service on `db`, with `cache`, serialized as JSON.stringify does. */
async function listThrough(db: Database, cache: RowBytesCache) {
  const service = createFindingService({ db, accounts: accounts(), entries: cache });
  const parts = await withSystemScope(() =>
    service.listGroups({} as Actor, tenant.accountId, {}, JSON.stringify),
  );
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))).toString();
}

/** The statements that read whole group rows: the list read whole, or rows by id. */
const rowReads = (statements: string[]) =>
  statements
    .filter((sql) => sql.includes('rule_attrs'))
    .map((sql) => (sql.includes('id = any($2::uuid[])') ? 'by id' : 'whole'));

test('every list is the same from the kept bytes as read from the table; another tenant has its own', async () => {
  const cache = t.app.services.listEntryCache;
  const first = await bodies();
  const groups = JSON.parse(first[0]!) as { id: string; account_id: string }[];
  assert.ok(groups.length >= 10, `groups: ${groups.length}`);
  assert.equal(JSON.parse(first[1]!).length, 3);
  assert.equal(first[5], '[]');
  assert.deepEqual(first, await expected());
  const kept = cache.size;
  assert.deepEqual(await bodies(), first);
  assert.deepEqual(cache.size, kept, 'a second read of the same lists keeps nothing new');

  const theirs = JSON.parse((await bodies(other))[0]!) as { id: string; account_id: string }[];
  assert.equal(theirs.length, groups.length);
  const ours = new Set(groups.map((group) => group.id));
  assert.ok(theirs.every((group) => group.account_id === other.accountId && !ours.has(group.id)));
  assert.deepEqual(await bodies(other), await expected(other));
});

test("a status change is a new row version: the next list shows it, and only the tenant's own", async () => {
  const [before] = await bodies();
  await bodies(other);
  const [group] = JSON.parse(before!) as { id: string; status: string }[];
  assert.equal(group?.status, 'open');
  const res = await t.request({
    method: 'PUT',
    url: `${urlOf(tenant, '')}/${group.id}/status`,
    token: tenant.adminToken,
    body: { status: 'ignored' },
  });
  assert.equal(res.status, 200, res.text);
  const after = await bodies();
  assert.deepEqual(after, await expected());
  assert.deepEqual(
    (JSON.parse(after[5]!) as { id: string; status: string }[]).map(({ id, status }) => ({ id, status })),
    [{ id: group.id, status: 'ignored' }],
  );
  assert.equal(JSON.parse((await bodies(other))[5]!).length, 0, "the other tenant's groups are unchanged");
});

test('a cache holding every group of the list reads only the versions; with none, the list is read whole', async () => {
  const [expectedBody] = await expected();
  const statements: string[] = [];
  const db = recordingDb(t.db, statements);
  const cache = createRowBytesCache({ maxBytes: 1024 * 1024 });
  assert.equal(await listThrough(db, cache), expectedBody);
  assert.deepEqual(rowReads(statements), ['by id'], 'an empty cache reads the rows by id');
  statements.length = 0;
  assert.equal(await listThrough(db, cache), expectedBody);
  assert.ok(statements.length > 0, 'the versions were read');
  assert.deepEqual(rowReads(statements), [], 'no group row read');

  statements.length = 0;
  assert.equal(await listThrough(db, createRowBytesCache({ maxBytes: 0 })), expectedBody);
  assert.deepEqual(rowReads(statements), ['whole']);
});

test('a list whose groups change between its two reads is read again, whole', async () => {
  const [expectedBody] = await expected();
  const statements: string[] = [];
  // Every group gets a new version just before the rows are read by id, as a concurrent push would.
  const racing = recordingDb(t.db, statements, async (sql) => {
    if (sql.includes('id = any($2::uuid[])') && sql.includes('finding_groups')) {
      await t.db.query('update finding_groups set id = id where account_id = $1', [tenant.accountId]);
    }
  });
  assert.equal(await listThrough(racing, createRowBytesCache({ maxBytes: 1024 * 1024 })), expectedBody);
  assert.deepEqual(
    rowReads(statements),
    ['by id', 'whole'],
    'the rows by id moved on: the list again, whole',
  );
});

test('several values of a key are read one combination at a time and merged in order, without repeats', async () => {
  const all = 'severity:negligible,severity:low,severity:medium,severity:high,severity:critical';
  const cases = [
    // two reads, a value given twice read once, and a limit the merge must apply across the reads
    { filters: 'severity:critical,severity:high,severity:high', limit: 5, reads: 2 },
    {
      filters: 'type:vulnerability,type:k8s_misconfiguration,status:open,status:ignored',
      limit: 4,
      reads: 4,
    },
    { filters: `${all},status:open,status:closed,status:ignored`, limit: 9, reads: 15 },
    // thirty combinations: one statement with `= any(...)`
    {
      filters: `${all},status:open,status:closed,status:ignored,type:vulnerability,type:k8s_misconfiguration`,
      limit: 9,
      reads: 1,
    },
  ];
  for (const { filters, limit, reads } of cases) {
    const clauses = new Map<string, string[]>();
    for (const [key, value] of filters.split(',').map((part) => part.split(':') as [string, string])) {
      clauses.set(key, [...new Set([...(clauses.get(key) ?? []), value])]);
    }
    const where = [...clauses].map(
      ([key, values]) => `and ${key} in (${values.map((v) => `'${v}'`).join(', ')})`,
    );
    const { rows } = await withSystemScope(() =>
      t.db.query<GroupRow>(
        `select * from finding_groups where account_id = $1 ${where.join(' ')} order by last_seen desc, id desc limit ${limit}`,
        [tenant.accountId],
      ),
    );
    assert.ok(rows.length > 1, `${filters}: the oracle holds ${rows.length} groups`);
    const res = await t.request({
      method: 'GET',
      url: urlOf(tenant, `?filters=${encodeURIComponent(filters)}&limit=${limit}`),
      token: tenant.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, JSON.stringify(rows.map(toApiGroup)), filters);

    const statements: string[] = [];
    const service = createFindingService({
      db: recordingDb(t.db, statements),
      accounts: accounts(),
      entries: createRowBytesCache({ maxBytes: 0 }),
    });
    await withSystemScope(() =>
      service.listGroups({} as Actor, tenant.accountId, { filters, limit }, JSON.stringify),
    );
    const [sql] = statements.filter((statement) => statement.includes('finding_groups'));
    assert.equal(sql?.split(' union all ').length, reads, `${filters}: ${sql}`);
  }
});
