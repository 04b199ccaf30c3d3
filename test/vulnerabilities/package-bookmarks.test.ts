/**
 * The inventory packages list starts a page from a package it has seen nearby (page-bookmarks.ts)
 * while the account's packages are at the generation it was seen in (migration 0055): pages read
 * in order, again or out of order, before and after scans add, change or drop packages, are the
 * one ordered list cut in pieces.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../support/harness.js';
import { assertPagesCutTheList } from '../support/paged-list.js';
import { type Account, get, pushOk, type Row, sampleAccount, scanDoc } from './support.js';

let t: TestApp;
let account: Account;
let other: Account;

before(async () => {
  // Every page past the first takes bookmarks: the lists here are tens of rows, not thousands.
  t = await startTestApp({ LIST_BOOKMARKS_FROM_OFFSET: 0 });
  account = await sampleAccount(t);
  other = await sampleAccount(t);
});
after(() => t.close());

async function page(of: Account, query: string): Promise<{ ids: string[]; total: number }> {
  const res = await get(t, of, `/accounts/${of.accountId}/inventory_packages?${query}`);
  assert.equal(res.status, 200, res.text);
  return { ids: res.body.entries.map((row: Row) => row.id), total: res.body.total_count };
}

/** Every page of 5 in order, then some again and out of order, each against the list in one page. */
async function assertPackagePagesCutTheList(of: Account, sort: string) {
  const all = (await page(of, `limit=1000&sort=${sort}`)).ids;
  await assertPagesCutTheList(
    all,
    async (offset) => {
      const read = await page(of, `limit=5&offset=${offset}&sort=${sort}`);
      assert.equal(read.total, all.length);
      return read.ids;
    },
    { size: 5, again: [25, 25, 30, 10, 35, 28, 11], message: sort },
  );
}

const generation = async () =>
  Number(
    (
      await t.db.query<{ generation: string }>(
        `select generation from list_totals where account_id = $1 and list = 'vulnerability_packages'`,
        [account.accountId],
      )
    ).rows[0]!.generation,
  );

describe('inventory packages: pages from bookmarks', () => {
  test('pages are the list cut in pieces, for each bookmarked sort', async () => {
    for (const sort of ['name:asc', 'name:desc', 'version:asc', 'version:desc']) {
      await assertPackagePagesCutTheList(account, sort);
    }
  });

  test('a scan adding, changing or dropping packages moves the generation, and pages stay right', async () => {
    await assertPackagePagesCutTheList(account, 'name:asc');
    const before = await generation();
    // A new image holding a package that sorts first: an insert.
    const early = scanDoc('storefront-api-3.8.0.trivy.json');
    early.ArtifactName = 'ghcr.io/acme/early:1.0.0';
    early.Metadata.RepoTags = ['ghcr.io/acme/early:1.0.0'];
    early.Metadata.RepoDigests = [`ghcr.io/acme/early@sha256:${'ef'.repeat(32)}`];
    early.Metadata.ImageID = `sha256:${'01'.repeat(32)}`;
    early.Results[1].Vulnerabilities[0].PkgName = 'aaa-early';
    await pushOk(t, account, early);
    const added = await generation();
    assert.ok(added > before, `${before} -> ${added}`);
    await assertPackagePagesCutTheList(account, 'name:asc');
    // The same image scanned again without that package: its counts change, then it goes.
    early.Results[1].Vulnerabilities[0].PkgName = 'zzz-late';
    await pushOk(t, account, early);
    const rescanned = await generation();
    assert.ok(rescanned > added);
    await assertPackagePagesCutTheList(account, 'name:asc');
    await assertPackagePagesCutTheList(account, 'version:desc');
    // An update alone (a scan changing counts, or any other writer) moves it too.
    await t.db.query(
      `update vulnerability_packages set images_count = images_count where account_id = $1 and name = 'zlib1g'`,
      [account.accountId],
    );
    assert.ok((await generation()) > rescanned);
  });

  test("another account's pages are its own", async () => {
    await page(account, 'limit=5&offset=10&sort=name:asc');
    const all = (await page(other, 'limit=1000&sort=name:asc')).ids;
    assert.ok(all.length > 10);
    for (const offset of [5, 10, 5]) {
      assert.deepEqual(
        (await page(other, `limit=5&offset=${offset}&sort=name:asc`)).ids,
        all.slice(offset, offset + 5),
      );
    }
  });
});
