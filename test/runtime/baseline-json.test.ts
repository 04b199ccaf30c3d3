/**
 * Pages of latest baseline fingerprints (#7) are assembled from each baseline's fingerprint text,
 * rendered when the baseline is written (migration 0023, src/modules/runtime/fingerprint-json.ts).
 * The body must be the same bytes the response schema's serializer writes: each page is read
 * with the stored text, then again after clearing it (the path of baselines written before 0023),
 * and both bodies are compared byte for byte. The harness also validates them against /openapi.json.
 * The server keeps the texts' bytes between pages (row-bytes-cache.ts): the last tests show it
 * serves them only at the row version it read.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { withSystemScope } from '../../src/db/scope.js';
import type { Actor } from '../../src/http/actor.js';
import { createRowBytesCache } from '../../src/http/row-bytes-cache.js';
import type { AccountService } from '../../src/modules/accounts/service.js';
import { createBaselineService } from '../../src/modules/runtime/baseline-service.js';
import { fingerprintJson } from '../../src/modules/runtime/fingerprint-json.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { recordingDb } from '../support/recording-db.js';
import { connect, exec, fileOpen, pushOk, putSettings, WEB, type WorkloadRef } from './support.js';

let t: TestApp;
let token: string;
let accountId: string;
before(async () => {
  t = await startTestApp();
  const tenant = await createTenant(t);
  token = tenant.adminToken;
  accountId = tenant.accountId;
  const cluster = (await createCluster(t, token, accountId, 'a')).id;
  await putSettings(
    t,
    { token, accountId },
    { learning_window_seconds: 60, trusted_ip_prefixes: [{ cidr: '10.96.0.0/12', name: 'services "k8s"' }] },
  );
  const workloads: WorkloadRef[] = [0, 1, 2].map((i) => ({
    ...WEB,
    workload: `svc-${i}`,
    pod: `svc-${i}-5d4f8b7c9-q2w3${i}`,
    containerId: `containerd://${String(i).repeat(64)}`,
  }));
  await pushOk(
    t,
    { token, accountId, clusterId: cluster },
    workloads.flatMap((w, i) => [
      exec(w, i, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      exec(w, i + 5, { pid: 7, ppid: 1, comm: 'worker', exe: '/app/bin/worker' }),
      // escapes and non-ASCII in the text, as JSON.stringify and the serializer both write them
      fileOpen(w, i + 6, 7, 'worker', `/data/"q"\\\tä-${i}.txt`),
      connect(w, i + 7, 7, 'worker', '10.96.0.10', 443),
      connect(w, i + 8, 1, 'server', '93.184.216.34', 80),
      exec(w, i + 200, { pid: 2, ppid: 0, comm: 'server', exe: '/app/server' }),
    ]),
  );
});
after(() => t.close());

const PAGES = [
  '',
  '?page_size=2&page=2',
  '?sort=workload_name:asc',
  '?q=svc-1',
  '?filters=workload_name:svc-2',
];
const listUrl = (query: string) =>
  `/accounts/${accountId}/container_runtime_latest_baseline_fingerprints${query}`;

async function bodies(): Promise<string[]> {
  const texts: string[] = [];
  for (const query of PAGES) {
    const res = await t.request({ method: 'GET', url: listUrl(query), token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    // Sent with the Content-Length of its pieces (json-text.ts): it counts bytes, not characters.
    assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)));
    assert.equal(res.headers['transfer-encoding'], undefined);
    texts.push(res.text);
  }
  return texts;
}

test('every baseline is written with its text, and pages read from it are the serializer bytes', async () => {
  const stored = await withSystemScope(() =>
    t.db.query<{ n: number; with_text: number }>(
      `select count(*)::int as n, count(fingerprint_json)::int as with_text
         from runtime_baselines where account_id = $1`,
      [accountId],
    ),
  );
  assert.deepEqual(stored.rows[0], { n: 3, with_text: 3 });
  const fromText = await bodies();
  assert.equal(JSON.parse(fromText[0]!).entries.length, 3);
  assert.match(fromText[0]!, /"path":"\/data\/\\"q\\"\\\\\\tä-\{num\}\.txt"/);

  await withSystemScope(() =>
    t.db.query('update runtime_baselines set fingerprint_json = null where account_id = $1', [accountId]),
  );
  const fromJsonb = await bodies();
  for (const [i, body] of fromText.entries()) assert.equal(body, fromJsonb[i], `page ${PAGES[i]}`);
});

/**
 * Renders the text of the account's first `limit` baselines by id (all without one) from their
 * stored jsonb, as migration 0023 does: the tests clear some texts.
 */
async function renderTexts(limit?: number) {
  const { rows } = await withSystemScope(() =>
    t.db.query<{ id: string; fingerprint: Parameters<typeof fingerprintJson>[0] }>(
      `select id, fingerprint from runtime_baselines where account_id = $1 order by id
        ${limit === undefined ? '' : `limit ${limit}`}`,
      [accountId],
    ),
  );
  for (const row of rows) {
    await withSystemScope(() =>
      t.db.query('update runtime_baselines set fingerprint_json = $3 where account_id = $1 and id = $2', [
        accountId,
        row.id,
        fingerprintJson(row.fingerprint),
      ]),
    );
  }
}

test('a page mixes baselines with and without their text in the same bytes', async () => {
  const before = await bodies();
  // Rendered from the stored jsonb, whose key order is not the schema's: the text follows the schema.
  await renderTexts(2);
  assert.deepEqual(await bodies(), before);
});

test('children_limit is answered from the parsed fingerprint; the text follows the serializer, and a fingerprint it refuses gets none', async () => {
  const cut = await t.request({ method: 'GET', url: listUrl('?children_limit=0'), token });
  assert.equal(cut.status, 200, cut.text);
  for (const entry of cut.body.entries) assert.deepEqual(entry.fingerprint.containers[0].processes, []);

  const { rows } = await withSystemScope(() =>
    t.db.query<{ fingerprint: Parameters<typeof fingerprintJson>[0] }>(
      'select fingerprint from runtime_baselines where account_id = $1 limit 1',
      [accountId],
    ),
  );
  const fingerprint = rows[0]!.fingerprint;
  const process = fingerprint.containers[0]!.processes[0]!;
  const withProcess = (changed: object) =>
    ({ ...fingerprint, containers: [{ ...fingerprint.containers[0]!, processes: [changed] }] }) as never;
  // Values off the schema are coerced as the route's serializer coerces them: the same text.
  const kind = JSON.parse(fingerprintJson({ ...fingerprint, kind: 7 } as never) ?? 'null');
  assert.equal(kind.kind, '7');
  const gid = JSON.parse(fingerprintJson(withProcess({ ...process, gid: '1000' })) ?? 'null');
  assert.equal(gid.containers[0].processes[0].gid, 1000);
  // A required property missing is refused by the serializer: no text, the route's old path answers.
  const { uid: _uid, ...missingUid } = process;
  assert.equal(fingerprintJson(withProcess(missingUid)), null);
});

test('the server keeps each fingerprint text it read, and serves it only at the row version it read', async () => {
  await renderTexts();
  const cache = t.app.services.baselineFingerprintCache;
  const first = await bodies();
  const kept = cache.size;
  assert.ok(kept.entries >= 3 && kept.bytes > 0, `held: ${JSON.stringify(kept)}`);
  assert.deepEqual(await bodies(), first);
  assert.deepEqual(cache.size, kept, 'a second read of the same pages keeps nothing new');

  // A rewrite of the text (a migration, a hand-typed update) is a new row version: read again.
  await withSystemScope(() =>
    t.db.query(
      `update runtime_baselines set fingerprint_json = replace(fingerprint_json, '"comm":"worker"', '"comm":"rewritten"')
        where account_id = $1`,
      [accountId],
    ),
  );
  const [rewritten] = await bodies();
  assert.match(rewritten!, /"comm":"rewritten"/);
  assert.doesNotMatch(rewritten!, /"comm":"worker"/);
});

/** Page 1 as the route reads it, through a service on `db` with a cache of `maxBytes`. */
async function pageThrough(db: Database, maxBytes: number): Promise<string> {
  const service = createBaselineService({
    db,
    accounts: { requireAccount: async () => ({ id: accountId }) } as unknown as AccountService,
    fingerprints: createRowBytesCache({ maxBytes }),
  });
  const parts = await withSystemScope(() =>
    service.listLatest({} as Actor, accountId, { page: { page: 1, pageSize: 50 } }, () =>
      assert.fail('every row here has its text'),
    ),
  );
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))).toString();
}

/** The statements that read the page's rows (baseline-repository.ts, listBaselines). */
const pageReads = (statements: string[]) =>
  statements.filter((sql) => sql.includes('row_version, fingerprint, fingerprint_json')).length;

test('a page whose rows change between its two reads is read again with its texts', async () => {
  await renderTexts();
  const [expected] = await bodies();
  const statements: string[] = [];
  // Every row gets a new version just before the texts are read, as a concurrent rewrite would.
  const racing = recordingDb(t.db, statements, async (sql) => {
    if (sql.includes('xmin::text as row_version, fingerprint_json')) {
      await t.db.query('update runtime_baselines set notes = notes where account_id = $1', [accountId]);
    }
  });
  assert.equal(await pageThrough(racing, 1024 * 1024), expected);
  assert.equal(pageReads(statements), 2, 'the page read, then read again with its texts');
});

test('with the cache off (BASELINE_FINGERPRINT_CACHE_MB=0) a page reads its texts with its rows', async () => {
  await renderTexts();
  const [expected] = await bodies();
  const statements: string[] = [];
  assert.equal(await pageThrough(recordingDb(t.db, statements), 0), expected);
  assert.equal(pageReads(statements), 1);
  assert.ok(!statements.some((sql) => sql.includes('xmin::text as row_version, fingerprint_json')));
});
