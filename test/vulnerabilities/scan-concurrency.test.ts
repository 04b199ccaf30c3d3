/**
 * Scan pushes of one account at once (docs/vulnerabilities-api.md, "Concurrent pushes"): pushes of
 * different images write their facts side by side and take turns for the derived rows, whose
 * last writer aggregates every push; pushes of one image take turns from the start, and the newer
 * scan wins whatever order they ran in. The account's scan lock is held by the test while the
 * pushes queue, as another push would hold it. PostgreSQL only: the embedded store runs one
 * transaction at a time.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Executor } from '../../src/db/database.js';
import { lockScans } from '../../src/modules/vulnerabilities/scan-store.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { pushesWaitingForAdvisoryLock, waitFor } from '../support/lock-waits.js';
import {
  type Account,
  cveReport,
  packageOracle,
  packages,
  pushOk,
  pushScan,
  type Row,
  readSample,
  type ScanFile,
  sampleAccount,
  scanDoc,
  scanText,
} from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const onPostgres = { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL: set DATABASE_URL' };

/** Three images sharing packages and CVE rows: zlib1g's critical CVE is in all three. */
const SHARING: ScanFile[] = [
  'nginx-1.27.2.trivy.json',
  'redis-7.4.1-alpine.grype.json',
  'postgres-16.4.cdx.json',
];

/** Pushes these documents at once while the test holds the account's scan lock; returns the answers. */
async function pushWhileLocked(
  account: Account,
  documents: string[],
  expectWaiting: (tx: Executor) => Promise<void>,
) {
  let pushes: ReturnType<typeof pushScan>[] = [];
  await t.db.transaction(async (tx) => {
    await lockScans(tx, account.accountId);
    pushes = documents.map((document) => pushScan(t, account, document));
    await expectWaiting(tx);
  });
  return Promise.all(pushes);
}

/** The CVE report without what differs between two accounts: ids, package ids, cluster ids. */
const comparable = (rows: Row[]) =>
  rows
    .map(({ id, package_id, cluster_id, ...row }) => row)
    .sort((a, b) => `${a.cve_name}|${a.package_name}`.localeCompare(`${b.cve_name}|${b.package_name}`));

test(
  'pushes of different images write their facts at once, then their derived rows in turn, counting each other',
  onPostgres,
  async () => {
    const account = await sampleAccount(t, { scans: [] });
    const answers = await pushWhileLocked(
      account,
      SHARING.map((file) => scanText(file)),
      async (tx) => {
        const waiting = await waitFor(() => pushesWaitingForAdvisoryLock(tx, 'vulnerability_findings'), 3);
        assert.equal(waiting, 3, 'every push wrote its findings before waiting for the account lock');
      },
    );
    for (const res of answers) assert.equal(res.status, 200, res.text);

    const oracle = packageOracle(SHARING.map((file) => readSample(scanDoc(file))));
    const rows = await packages(t, account);
    assert.equal(rows.length, oracle.size);
    for (const { id, name, version, in_use, ...counts } of rows)
      assert.deepEqual(counts, oracle.get(`${name}@${version}`), `${name}@${version}`);

    // The same scans pushed one after the other into another account make the same report.
    const serial = await sampleAccount(t, { scans: SHARING });
    const report = await cveReport(t, account);
    assert.ok(
      report.some((row) => row.package_name === 'zlib1g' && row.affected_images_count === 3),
      "zlib1g's CVE row counts the three images",
    );
    assert.deepEqual(comparable(report), comparable(await cveReport(t, serial)));
  },
);

test(
  'pushes of one image take turns from the start, and the newer scan wins in either order',
  onPostgres,
  async () => {
    const account = await sampleAccount(t, { scans: [] });
    const older = scanDoc('nginx-1.27.2.trivy.json');
    older.CreatedAt = '2024-11-01T00:00:00Z';
    const newer = scanDoc('nginx-1.27.2.trivy.json');
    newer.CreatedAt = '2024-11-20T00:00:00Z';
    // The newer scan found fewer vulnerabilities: which scan is stored shows in the counts.
    newer.Results[0].Vulnerabilities = newer.Results[0].Vulnerabilities.slice(0, 10);
    const answers = await pushWhileLocked(
      account,
      [JSON.stringify(older), JSON.stringify(newer)],
      async (tx) => {
        assert.equal(await waitFor(() => pushesWaitingForAdvisoryLock(tx), 2), 2, 'both pushes are waiting');
        assert.equal(
          await pushesWaitingForAdvisoryLock(tx, 'vulnerability_findings'),
          1,
          "one push wrote the image's facts; the other waits for the image before writing any",
        );
      },
    );
    for (const res of answers) assert.equal(res.status, 200, res.text);
    // In push order: the older scan first (the newer then replaces it), or the newer first.
    const outcomes = answers.map((res) => res.body.outcome as string);
    assert.ok(
      ['created,replaced', 'superseded,created'].includes(outcomes.join(',')),
      `outcomes ${outcomes.join(', ')}`,
    );
    const newest = readSample(newer);
    const { rows } = await t.db.query<{ scanned_at: Date; findings: number }>(
      `select i.scanned_at, (select count(*)::int from vulnerability_findings f
                            where f.account_id = i.account_id and f.image_id = i.id) as findings
       from vulnerability_images i where i.account_id = $1`,
      [account.accountId],
    );
    assert.deepEqual(rows, [
      { scanned_at: new Date(newer.CreatedAt), findings: newest.vulnerabilities.length },
    ]);
    const oracle = packageOracle([newest]);
    for (const { id, name, version, in_use, ...counts } of await packages(t, account))
      assert.deepEqual(counts, oracle.get(`${name}@${version}`), `${name}@${version}`);

    // A later push of the older scan changes nothing.
    assert.equal((await pushOk(t, account, JSON.stringify(older))).outcome, 'superseded');
  },
);
