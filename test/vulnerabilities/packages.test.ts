/**
 * GET .../inventory_packages (#9) and .../facets (#10) on the sample cluster with every sample
 * scan, plus one scan of an image no container runs. Counts are checked against an oracle built
 * from the readers' output; every filter, q, every sort key and paging are exercised.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SEVERITIES } from '../../src/ingest/vulnerabilities/severity.js';
import { PACKAGE_SORT_FIELDS } from '../../src/modules/vulnerabilities/package-schemas.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import {
  type Account,
  assertSorted,
  get,
  packageOracle,
  packages,
  pushOk,
  type Row,
  readSample,
  SCAN_FILES,
  sampleAccount,
  scanDoc,
} from './support.js';

let t: TestApp;
let account: Account;
/** A scan of an image the cluster does not run, holding one package of its own. */
const idle = scanDoc('storefront-api-3.8.0.trivy.json');
idle.ArtifactName = 'ghcr.io/acme/batch-worker:1.0.0';
idle.Metadata.RepoTags = ['ghcr.io/acme/batch-worker:1.0.0'];
idle.Metadata.RepoDigests = [`ghcr.io/acme/batch-worker@sha256:${'ab'.repeat(32)}`];
idle.Metadata.ImageID = `sha256:${'cd'.repeat(32)}`;
idle.Results[1].Vulnerabilities[0].PkgName = 'com.acme:batch-only';

before(async () => {
  t = await startTestApp();
  account = await sampleAccount(t);
  await pushOk(t, account, idle);
});
after(() => t.close());

const list = (query: string) => packages(t, account, query);
const names = (rows: Row[]) => rows.map((row) => `${row.name}@${row.version}`).sort();

describe('package rows', () => {
  test('one row per name + version, with the counts the scans imply', async () => {
    const oracle = packageOracle([...SCAN_FILES.map((file) => readSample(scanDoc(file))), readSample(idle)]);
    const rows = await list('');
    assert.equal(rows.length, oracle.size);
    for (const row of rows) {
      const expected = oracle.get(`${row.name}@${row.version}`);
      assert.ok(expected, `${row.name}@${row.version} is in no scan`);
      const { id, name, version, in_use, ...counts } = row;
      assert.deepEqual(counts, expected, `${name}@${version}`);
      assert.match(id, /^[0-9a-f-]{36}$/);
    }
    // zlib1g is in nginx, redis and postgres, with one critical CVE counted once.
    const zlib = rows.find((row) => row.name === 'zlib1g');
    assert.equal(zlib.images_count, 3);
    assert.equal(zlib.critical_count, 1);
  });

  test('in_use: packages of running images, not those only an idle image holds', async () => {
    const inUse = await list('&filters=in_use:true');
    const idleOnly = await list('&filters=in_use:false');
    assert.deepEqual(names(idleOnly), ['com.acme:batch-only@2.13.2']);
    assert.ok(inUse.every((row) => row.in_use === true));
    assert.equal(inUse.length + idleOnly.length, (await list('')).length);
    assert.ok(
      inUse.some((row) => row.name === 'busybox'),
      'busybox:latest runs in payments/debug-shell',
    );
    assert.equal((await list('&filters=in_use:true,in_use:false')).length, (await list('')).length);
    // A page's in_use, judged on its rows alone, agrees with the filter, judged over the account.
    const running = new Set(names(inUse));
    for (const row of await list('')) {
      assert.equal(row.in_use, running.has(`${row.name}@${row.version}`), `${row.name}@${row.version}`);
    }
    assert.ok(
      idleOnly.every((row) => row.in_use === false),
      'an idle-only package is not in use',
    );
  });

  test('name, version, severity filters and q', async () => {
    const all = await list('');
    // Debian's and Alpine's libssl3 are two rows of one name.
    assert.deepEqual(names(await list('&filters=name:libssl3')), [
      'libssl3@3.0.11-1~deb12u2',
      'libssl3@3.1.4-r5',
    ]);
    assert.deepEqual(names(await list('&filters=name:libssl3,name:zlib1g')), [
      'libssl3@3.0.11-1~deb12u2',
      'libssl3@3.1.4-r5',
      'zlib1g@1:1.2.13.dfsg-1',
    ]);
    assert.deepEqual(names(await list('&filters=name:libssl3,version:3.1.4-r5')), ['libssl3@3.1.4-r5']);
    const version = await list(`&filters=version:${encodeURIComponent('1:1.2.13.dfsg-1')}`);
    assert.deepEqual(names(version), ['zlib1g@1:1.2.13.dfsg-1']);
    for (const severity of SEVERITIES) {
      const rows = await list(`&filters=severity:${severity}`);
      assert.deepEqual(names(rows), names(all.filter((row) => row[`${severity}_count`] > 0)), severity);
    }
    const either = await list('&filters=severity:critical,severity:negligible');
    assert.deepEqual(
      names(either),
      names(all.filter((row) => row.critical_count > 0 || row.negligible_count > 0)),
    );
    const combined = await list('&filters=severity:high,in_use:false');
    assert.deepEqual(names(combined), ['com.acme:batch-only@2.13.2']);
    const searched = await list('&q=LIBSSL');
    assert.deepEqual(names(searched), names(all.filter((row) => row.name.includes('libssl'))));
    assert.deepEqual(
      names(await list('&q=dfsg-1')),
      names(all.filter((row) => row.version.includes('dfsg-1'))),
    );
    assert.deepEqual(await list('&q=50%25_'), []);
    const holds = (row: Row, phrase: string) => `${row.name}\n${row.version}`.toLowerCase().includes(phrase);
    const contains = (phrase: string) => names(all.filter((row) => holds(row, phrase)));
    // Versions are punctuation, each matched as itself (migration 0053), and names hold some.
    for (const q of ['1:1.2.13', '.dfsg', '3.1.4-R5', 'com.acme:']) {
      assert.ok(contains(q.toLowerCase()).length > 0, q);
      assert.deepEqual(names(await list(`&q=${encodeURIComponent(q)}`)), contains(q.toLowerCase()), q);
    }
    // A searched page carries its total (search.ts); a page past the end is counted apart.
    const pastTheEnd = await get(
      t,
      account,
      `/accounts/${account.accountId}/inventory_packages?offset=500&q=lib`,
    );
    assert.deepEqual(pastTheEnd.body.entries, []);
    assert.ok(all.length < 500 && contains('lib').length > 0);
    assert.equal(pastTheEnd.body.total_count, contains('lib').length);
    // The search's rows with other filters on them: the page and its total_count (packages()).
    for (const [q, filters, keep] of [
      ['lib', 'severity:high', (row: Row) => row.high_count > 0],
      ['lib', 'in_use:true', (row: Row) => row.in_use],
      ['acme', 'in_use:false', (row: Row) => !row.in_use],
    ] as const) {
      const expected = names(all.filter((row) => holds(row, q) && keep(row)));
      assert.ok(expected.length > 0, filters);
      assert.deepEqual(names(await list(`&q=${q}&filters=${filters}`)), expected, filters);
    }
    // A phrase of two characters has no trigram and is searched field by field (search.ts).
    assert.deepEqual(names(await list('&q=Ib')), contains('ib'));
    assert.ok(contains('ib').length > 1);
    // The name and the version are one indexed text (migration 0042), but a phrase never spans them.
    const first = all[0]!;
    const across = `${first.name.slice(-2)}${first.version.slice(0, 2)}`;
    assert.deepEqual(names(await list(`&q=${encodeURIComponent(across)}`)), contains(across.toLowerCase()));
  });

  test('bad filters are 400 naming the parameter', async () => {
    for (const filters of ['colour:red', 'severity:catastrophic', 'in_use:maybe']) {
      const res = await get(
        t,
        account,
        `/accounts/${account.accountId}/inventory_packages?filters=${filters}`,
      );
      assert.equal(res.status, 400, filters);
      assert.equal(res.body.validation_details[0].field, 'filters');
    }
    const sort = await get(t, account, `/accounts/${account.accountId}/inventory_packages?sort=in_use`);
    assert.equal(sort.status, 400);
    assert.equal(sort.body.validation_details[0].field, 'sort');
  });
});

describe('sorting and paging', () => {
  test('default is name:asc, then version', async () => {
    const rows = await list('');
    assertSorted(rows, (row) => `${row.name}\u0000${row.version}`, 'asc');
  });

  for (const field of PACKAGE_SORT_FIELDS) {
    for (const direction of ['asc', 'desc'] as const) {
      test(`sort=${field}:${direction} orders by it; pages of 7 add up to the same order`, async () => {
        const rows = await list(`&sort=${field}:${direction}`);
        assertSorted(rows, (row) => row[field], direction);
        const paged: Row[] = [];
        for (let offset = 0; offset < rows.length; offset += 7) {
          const res = await get(
            t,
            account,
            `/accounts/${account.accountId}/inventory_packages?sort=${field}:${direction}&limit=7&offset=${offset}`,
          );
          assert.equal(res.body.total_count, rows.length);
          assert.equal(res.body.has_more, offset + 7 < rows.length);
          paged.push(...res.body.entries);
        }
        assert.deepEqual(
          paged.map((row) => row.id),
          rows.map((row) => row.id),
        );
      });
    }
  }

  // One severity's total is kept at ingestion (migration 0048), so its pages past the middle are
  // read from the list's end (page-range.ts): they must hold what a forward read holds.
  test('pages of one severity, from either end, add up to the filtered list', async () => {
    for (const severity of ['high', 'medium']) {
      for (const sort of ['name:asc', 'critical_count:desc']) {
        const rows = await list(`&filters=severity:${severity}&sort=${sort}`);
        assert.ok(rows.length > 6, `${severity} has pages to read`);
        const paged: Row[] = [];
        for (let offset = 0; offset < rows.length; offset += 3) {
          const res = await get(
            t,
            account,
            `/accounts/${account.accountId}/inventory_packages?filters=severity:${severity}&sort=${sort}&limit=3&offset=${offset}`,
          );
          assert.equal(res.body.total_count, rows.length);
          paged.push(...res.body.entries);
        }
        assert.deepEqual(
          paged.map((row) => row.id),
          rows.map((row) => row.id),
          `${severity} ${sort}`,
        );
      }
    }
  });

  // The tie-break is the documented one in both directions: a descending count sort is read from
  // its index (migration 0045), whose backward walk would give names descending instead.
  test('count sorts break ties by name then version ascending, in both directions', async () => {
    // The server's own name:asc order (name, version, id), so the check holds under any collation.
    const byName = new Map((await list('&sort=name:asc')).map((row, index) => [row.id, index]));
    for (const field of PACKAGE_SORT_FIELDS.filter((name) => name !== 'name' && name !== 'version')) {
      for (const direction of ['asc', 'desc'] as const) {
        const rows = await list(`&sort=${field}:${direction}`);
        let ties = 0;
        for (let i = 1; i < rows.length; i++) {
          if (rows[i - 1][field] !== rows[i][field]) continue;
          ties++;
          assert.ok(
            byName.get(rows[i - 1].id)! < byName.get(rows[i].id)!,
            `${field}:${direction} row ${i}: ${rows[i - 1].name}@${rows[i - 1].version} then ${rows[i].name}@${rows[i].version}`,
          );
        }
        assert.ok(ties > 0, `${field}:${direction} has ties to check`);
      }
    }
  });
});

describe('facets', () => {
  test('a bare array; every facet id is a filter key the list accepts, and no other key is', async () => {
    const res = await get(t, account, `/accounts/${account.accountId}/inventory_packages/facets`);
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    const sampleValue: Record<string, string> = { string: 'x', boolean: 'true', severity: 'high' };
    for (const facet of res.body) {
      assert.deepEqual(Object.keys(facet).sort(), ['category', 'default_value', 'id', 'name', 'type']);
      const value = sampleValue[facet.type];
      assert.ok(value, `facet type ${facet.type} is documented`);
      const filtered = await get(
        t,
        account,
        `/accounts/${account.accountId}/inventory_packages?filters=${facet.id}:${value}`,
      );
      assert.equal(filtered.status, 200, `${facet.id}: ${filtered.text}`);
    }
    assert.deepEqual(res.body.map((facet: { id: string }) => facet.id).sort(), [
      'in_use',
      'name',
      'severity',
      'version',
    ]);
  });
});

describe('isolation', () => {
  test("another account of the tenant sees none of this account's packages", async () => {
    const otherAccount = await account.tenant.addAccount();
    const res = await get(t, account, `/accounts/${otherAccount}/inventory_packages`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { entries: [], has_more: false, total_count: 0 });
    const report = await get(t, account, `/accounts/${otherAccount}/reports/inventory_cves`);
    assert.deepEqual(report.body, []);
  });
});
