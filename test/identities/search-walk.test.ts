/**
 * A page of identities searched by `q` alone is read either by the ids of its matches or along the
 * sort's index (src/modules/identities/search.ts, docs/performance.md "Fix 73"), whichever is
 * expected to read less. Both readings must give the page the unsearched list gives, restricted to
 * the matches, with the matches' count as the total; which one runs is PostgreSQL's choice at
 * execution, read here from the plan.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { searchPathFor } from '../../src/http/search.js';
import { sortOrder } from '../../src/http/sort.js';
import { searchedPageKeys } from '../../src/modules/identities/search.js';
import { Where } from '../../src/modules/resources/where.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  allIdentities,
  identitiesMatching,
  listIdentities,
  pushObjects,
  pushSampleWithRbac,
  serviceAccount,
} from './support.js';

let t: TestApp;
let tenant: TestTenant;
/** the account's 99 identities: 60 hold BROAD, 20 of them SOME, 2 others NARROW */
const BROAD = 'walk';
const SOME = 'walk-1';
const NARROW = 'lone';
const MATCHES: Record<string, number> = { [BROAD]: 60, [SOME]: 20, [NARROW]: 2 };

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  // identities of several risk scores, none of which holds either phrase
  await pushSampleWithRbac(t, tenant);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'searched');
  const walkers = Array.from({ length: 60 }, (_, n) => serviceAccount(`walk-${n % 3}`, `sa-${n}`));
  await pushObjects(t, tenant, cluster.id, [
    ...walkers,
    serviceAccount('apart', 'lone-1'),
    serviceAccount('apart', 'lone-2'),
  ]);
});
after(() => t.close());

/** Every page of `query` at `pageSize`, with each page's total. */
async function pages(query: string, pageSize: number) {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let page = 1; ; page++) {
    const res = await listIdentities(t, tenant, `?page=${page}&page_size=${pageSize}&${query}`);
    assert.equal(res.status, 200, res.text);
    const entries = res.body.entries as { id: string }[];
    totals.add(res.body.total_count as number);
    if (entries.length === 0) return { ids, totals: [...totals] };
    ids.push(...entries.map((entry) => entry.id));
  }
}

test('either reading gives the unsearched list restricted to the matches, page by page, in every walked sort', async () => {
  const identities = (await allIdentities(t, tenant)).length;
  assert.equal(identities, 99);
  for (const [q, matches] of Object.entries(MATCHES)) {
    const matched = new Set(await identitiesMatching(t, tenant, q));
    assert.equal(matched.size, matches, q);
    for (const sort of [
      'risk_score:desc',
      'risk_score:asc',
      'name:asc',
      'name:desc',
      'created_at:desc',
      'updated_at:asc',
    ]) {
      const everyone = (await allIdentities(t, tenant, `&sort=${sort}`)).map((entry) => entry.id as string);
      assert.equal(everyone.length, identities);
      const expected = everyone.filter((id) => matched.has(id));
      // pages of 7: BROAD's all walked, SOME's first two walked and the third on by id, NARROW's by id
      const searched = await pages(`sort=${sort}&q=${q}`, 7);
      assert.deepEqual(searched.ids, expected, `${q} ${sort}`);
      assert.deepEqual(searched.totals, [matches], `${q} ${sort}: the total on every page and past the end`);
    }
  }
});

/** Which of the two readings ran for a page of `q` sorted by risk, from the plan's executed nodes. */
async function reading(q: string, offset: number): Promise<'walked' | 'by id'> {
  const where = new Where('i.account_id = $', tenant.accountId);
  const keys = searchedPageKeys(where, {
    accountId: tenant.accountId,
    q,
    path: searchPathFor(t.db.engine),
    order: sortOrder({ field: 'risk_score', direction: 'desc' }, { risk_score: 'i.risk_score' }, 'i.id'),
    page: { offset, limit: 10 },
  });
  const { rows } = await t.db.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, costs off, timing off, summary off) select * from ${keys} k`,
    where.params,
  );
  const lines = rows.map((row) => row['QUERY PLAN']);
  const plan = lines.join('\n');
  // The reading by id counts its rows in a window; the walk tests each entry against the hashed
  // matches, in the filter of its scan (the node above that filter).
  const byId = lines.some((line) => /WindowAgg \(actual/.test(line));
  const matchTest = lines.findIndex((line) => /Filter: .*hashed SubPlan/.test(line));
  const scan = lines.slice(0, matchTest).findLast((line) => line.includes('->'));
  assert.ok(scan !== undefined, plan);
  const walked = !scan.includes('(never executed)');
  assert.notEqual(byId, walked, `exactly one reading runs\n${plan}`);
  return walked ? 'walked' : 'by id';
}

test('a phrase most identities hold is read along the index; a rare one, or a deep page, by id', async () => {
  // A page of 10 at offset o is expected to walk (o + 10) * 99 / matches entries, and is walked
  // while that is at most four a match.
  assert.equal(await reading(BROAD, 0), 'walked');
  assert.equal(await reading(BROAD, 50), 'walked', 'the last page: 60 * 99 <= 4 * 60 * 60');
  assert.equal(await reading(SOME, 0), 'walked', '10 * 99 <= 4 * 20 * 20');
  assert.equal(await reading(SOME, 10), 'by id', '20 * 99 > 4 * 20 * 20');
  assert.equal(await reading(NARROW, 0), 'by id');
});
