/**
 * `posture feeds import FILE...` in-process against a real store: EPSS (gzip) and KEV files load,
 * the CVE report of a tenant reads them through the real app, a re-import changes the report
 * without any rescan, and a bad file changes nothing and fails with one line.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CliStore, createCliStore, failedWith, succeeded } from './cli-store.js';

const SAMPLE = new URL('../../sample/', import.meta.url);
const sample = (path: string) => new URL(path, SAMPLE).pathname;

let store: CliStore;
let account: { accountId: string; keyId: string; secret: string };
before(async () => {
  store = await createCliStore();
  const boot = await store.bootstrap();
  account = { accountId: boot.account_id, keyId: boot.access_key_id, secret: boot.secret_key };
  // A cluster and the redis scan, pushed through the real app.
  await store.withApp(async (api) => {
    const { token } = await api.authenticate(account.keyId, account.secret);
    const auth = { authorization: `Bearer ${token}` };
    const cluster = await api.app.inject({
      method: 'POST',
      url: `/accounts/${account.accountId}/clusters`,
      headers: auth,
      payload: { name: 'prod' },
    });
    assert.equal(cluster.statusCode, 201, cluster.body);
    const scan = await api.app.inject({
      method: 'POST',
      url: `/accounts/${account.accountId}/clusters/${cluster.json().id}/ingest/vulnerabilities`,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: readFileSync(sample('scans/redis-7.4.1-alpine.grype.json')),
    });
    assert.equal(scan.statusCode, 200, scan.body);
  });
});
after(() => store.close());

/** The CVE report row of a CVE of the redis scan, read through the real app. */
async function reportRow(cve: string) {
  return store.withApp(async (api) => {
    const { token } = await api.authenticate(account.keyId, account.secret);
    const res = await api.get(
      `/accounts/${account.accountId}/reports/inventory_cves?filters=cve_name:${cve}`,
      token!,
    );
    assert.equal(res.status, 200);
    return res.body[0];
  });
}

test('feeds import loads EPSS (gzip) and KEV; the report reads them', async () => {
  assert.equal((await reportRow('CVE-2023-44487')).epss_score, null);
  const result = await store.json('feeds', 'import', sample('feeds/epss.csv.gz'), sample('feeds/kev.json'));
  assert.deepEqual(
    result.imports.map(({ imported_at, ...rest }: { imported_at: string }) => {
      assert.ok(!Number.isNaN(Date.parse(imported_at)));
      return rest;
    }),
    [
      {
        file: sample('feeds/epss.csv.gz'),
        feed: 'epss',
        rows: 57,
        compressed: true,
        version: 'v2023.03.01',
        published_at: '2024-07-01T00:00:00.000Z',
      },
      {
        file: sample('feeds/kev.json'),
        feed: 'kev',
        rows: 7,
        compressed: false,
        version: '2024.07.01',
        published_at: '2024-07-01T15:00:41.152Z',
      },
    ],
  );
  const row = await reportRow('CVE-2023-44487');
  assert.equal(row.epss_score, 0.72514);
  assert.equal(row.is_known_exploited, true);
});

test('a re-import changes the report without any rescan; people get a readable block', async () => {
  const file = join(store.dataDir, '..', 'epss-next.csv');
  writeFileSync(
    file,
    '#model_version:v2025.03.14,score_date:2025-01-02T00:00:00+0000\ncve,epss,percentile\nCVE-2023-44487,0.9,0.99\n',
  );
  const run = await store.run('feeds', 'import', file);
  succeeded(run);
  assert.match(run.stdout, new RegExp(`^Imported ${file}\\.\\n  feed: +epss\\n  rows: +1\\n`));
  assert.match(run.stdout, /version: +v2025\.03\.14/);
  assert.equal((await reportRow('CVE-2023-44487')).epss_score, 0.9);
});

test('a bad file fails with one line naming it, and its feed is unchanged', async () => {
  const bad = join(store.dataDir, '..', 'epss-bad.csv');
  writeFileSync(bad, 'cve,epss,percentile\nCVE-2023-44487,0.1,0.2\nCVE-2023-9,0.1,0.2\n');
  failedWith(
    await store.run('feeds', 'import', sample('feeds/kev.json'), bad),
    1,
    new RegExp(
      `^posture: ${bad}: recognised FIRST EPSS CSV, but line 3: cve is "CVE-2023-9".*imported before it: .*kev\\.json`,
    ),
  );
  assert.equal((await reportRow('CVE-2023-44487')).epss_score, 0.9, 'the previous scores stay');
  failedWith(
    await store.run('feeds', 'import', sample('scans/busybox-latest.cdx.json')),
    1,
    /busybox-latest\.cdx\.json: the feed is JSON but not a recognised feed/,
  );
  failedWith(
    await store.run('feeds', 'import', join(store.dataDir, 'missing.csv')),
    1,
    /cannot read .*missing\.csv/,
  );
  failedWith(await store.run('feeds', 'import'), 2, /missing required argument 'file'/);
  succeeded(await store.run('feeds', 'import', '--help'));
});
