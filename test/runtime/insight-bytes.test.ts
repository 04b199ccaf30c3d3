/**
 * Pages of runtime insights are assembled from each entry's bytes, which the server keeps by the
 * insight row's version (row-bytes-cache.ts, docs/performance.md "Fix 46"). Each body must be the
 * bytes the list's response schema's serializer (fast-json-stringify, what Fastify compiles from
 * it) writes for the same values, whether its entries came from the cache, from rows read by id,
 * or from a page read whole; the harness also validates every body against /openapi.json. An
 * insight rewritten by a later push is a new row version, and is read again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fastJson from 'fast-json-stringify';
import type { Database } from '../../src/db/database.js';
import { withSystemScope } from '../../src/db/scope.js';
import { syntheticStream } from '../../src/engines/runtime/sample/bench.js';
import type { Actor } from '../../src/http/actor.js';
import { createRowBytesCache } from '../../src/http/row-bytes-cache.js';
import type { AccountService } from '../../src/modules/accounts/service.js';
import { InsightList, RuntimeInsightSummarySchema } from '../../src/modules/runtime/insight-schemas.js';
import { createInsightService, type InsightSummary } from '../../src/modules/runtime/insight-service.js';
import { createCluster } from '../ingest/sample.js';
import { startDemoTenant } from '../support/demo.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { recordingDb } from '../support/recording-db.js';
import { pushOk, putSettings } from './support.js';

let t: TestApp;
let accountId: string;
let token: string;
before(async () => {
  t = await startTestApp();
  ({ accountId, token } = await startDemoTenant(t));
  // The demo cluster's one insight, and twenty more with drift and their analysis: the benchmark's
  // synthetic stream in a second cluster.
  const clusterId = (await createCluster(t, token, accountId, 'synthetic')).id;
  await putSettings(t, { token, accountId }, { learning_window_seconds: 3600 });
  await pushOk(t, { token, accountId, clusterId }, syntheticStream(4000));
});
after(() => t.close());

const PAGES = [
  '',
  '?limit=2&offset=1',
  '?sort=severity:desc',
  '?sort=created_at:asc&limit=3',
  '?offset=1000',
];
const listUrl = (query: string) => `/accounts/${accountId}/container_runtime_insights${query}`;
const serializeList = fastJson(InsightList as object);

async function bodies(): Promise<string[]> {
  const texts: string[] = [];
  for (const query of PAGES) {
    const res = await t.request({ method: 'GET', url: listUrl(query), token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)));
    assert.equal(serializeList(JSON.parse(res.text)), res.text, `${query}: not the serializer's bytes`);
    texts.push(res.text);
  }
  return texts;
}

test("the account's insights are listed as the serializer writes them, from the cache the second time", async () => {
  const cache = t.app.services.runtimeInsightCache;
  const first = await bodies();
  const entries = JSON.parse(first[0]!).entries as { analysis: unknown[] }[];
  assert.ok(entries.length >= 10, `insights: ${entries.length}`);
  assert.ok(
    entries.some((entry) => entry.analysis.length > 0),
    'some with an analysis',
  );
  const kept = cache.size;
  assert.ok(kept.entries >= entries.length && kept.bytes > 0, `held: ${JSON.stringify(kept)}`);
  assert.deepEqual(await bodies(), first);
  assert.deepEqual(cache.size, kept, 'a second read of the same pages keeps nothing new');
});

test('an insight rewritten since it was kept is a new row version: its page shows the rewrite', async () => {
  await bodies();
  await withSystemScope(() =>
    t.db.query(
      `update runtime_insights set summary = jsonb_set(summary, '{kube_meta,node_name}', '"rewritten-node"')
        where account_id = $1`,
      [accountId],
    ),
  );
  const [page] = await bodies();
  assert.match(page!, /"node_name":"rewritten-node"/);
});

/** Page 1 as the route reads it, through a service on `db` with a cache of `maxBytes`. */
async function pageThrough(db: Database, maxBytes: number): Promise<string> {
  const service = createInsightService({
    db,
    accounts: { requireAccount: async () => ({ id: accountId }) } as unknown as AccountService,
    entries: createRowBytesCache({ maxBytes }),
  });
  const serialize = fastJson(RuntimeInsightSummarySchema as object) as (entry: InsightSummary) => string;
  const parts = await withSystemScope(() =>
    service.list({} as Actor, accountId, { page: { limit: 100, offset: 0 } }, serialize),
  );
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))).toString();
}

/** The statements that read a page's whole rows (insight-repository.ts, listInsights). */
const wholePageReads = (statements: string[]) =>
  statements.filter((sql) => sql.includes('llm_analysis') && sql.includes(' offset ')).length;

test('a page whose rows change between its two reads is read again, whole', async () => {
  const [expected] = await bodies();
  const statements: string[] = [];
  // Every row gets a new version just before the rows are read by id, as a concurrent push would.
  const racing = recordingDb(t.db, statements, async (sql) => {
    if (sql.includes('id = any($2::uuid[])') && sql.includes('runtime_insights')) {
      await t.db.query('update runtime_insights set state = state where account_id = $1', [accountId]);
    }
  });
  assert.equal(await pageThrough(racing, 1024 * 1024), expected);
  assert.equal(wholePageReads(statements), 1, 'the versions, then the page again, whole');
});

test('a service whose cache holds every entry reads only the versions', async () => {
  const [expected] = await bodies();
  const statements: string[] = [];
  const db = recordingDb(t.db, statements);
  const service = createInsightService({
    db,
    accounts: { requireAccount: async () => ({ id: accountId }) } as unknown as AccountService,
    entries: createRowBytesCache({ maxBytes: 1024 * 1024 }),
  });
  const serialize = fastJson(RuntimeInsightSummarySchema as object) as (entry: InsightSummary) => string;
  const page = () =>
    withSystemScope(() =>
      service.list({} as Actor, accountId, { page: { limit: 100, offset: 0 } }, serialize),
    );
  await page();
  statements.length = 0;
  const parts = await page();
  const text = Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
  assert.equal(text.toString(), expected);
  assert.equal(wholePageReads(statements), 0);
  assert.ok(!statements.some((sql) => sql.includes('id = any($2::uuid[])')), 'no row read by id');
});

test('with the cache off (RUNTIME_INSIGHT_CACHE_MB=0) a page reads its rows whole, once', async () => {
  const [expected] = await bodies();
  const statements: string[] = [];
  assert.equal(await pageThrough(recordingDb(t.db, statements), 0), expected);
  assert.equal(wholePageReads(statements), 1);
  assert.ok(!statements.some((sql) => sql.includes('id = any($2::uuid[])')));
});
