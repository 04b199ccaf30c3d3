/**
 * A page past the middle of a list is read from its end (page-range.ts): every page is still the
 * one ordered list cut at offset and limit, ties, nulls and mixed directions included, and past
 * the end it is empty; a deep page runs only the backward reading. Checked on a table of its own
 * against the plain forward statement, then through every list endpoint on the demo tenant's data
 * against one page holding the whole list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startDemoTenant } from '../../../test/support/demo.js';
import { startTestApp, type TestApp } from '../../../test/support/harness.js';
import { type ListOrder, type OrderTerm, orderSql } from '../../http/sort.js';
import { Where } from '../resources/where.js';
import { pageRange } from './page-range.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('pageRange on a table of its own', () => {
  before(async () => {
    await t.db.exec('create table page_range_rows (owner int not null, k int, label text, id int not null)');
  });

  interface Row {
    k: number | null;
    label: string | null;
  }

  /** Few distinct values and nulls, so that pages cut through ties and through the nulls. */
  const row = fc.record({
    k: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    label: fc.option(fc.constantFrom('a', 'b', 'B'), { nil: null }),
  });
  const term = (column: string) =>
    fc.record(
      {
        column: fc.constant(column),
        direction: fc.constantFrom('asc' as const, 'desc' as const),
        nulls: fc.constantFrom('first' as const, 'last' as const),
      },
      { requiredKeys: ['column', 'direction'] },
    );
  const order = fc
    .tuple(term('k'), term('label'), fc.boolean())
    .map(([k, label, labelFirst]): OrderTerm[] => [
      ...(labelFirst ? [label, k] : [k, label]),
      // id last, as every list ends its order with a unique key
      { column: 'id', direction: k.direction },
    ]);

  async function fill(rows: Row[]) {
    await t.db.query('delete from page_range_rows');
    // Another owner's rows sit beside the list's and must never count or show.
    await t.db.query(
      `insert into page_range_rows (owner, k, label, id)
       select 1, r.k, r.label, r.id from unnest($1::int[], $2::text[], $3::int[]) as r (k, label, id)
       union all select 2, 0, 'a', g from generate_series(1, 5) g`,
      [rows.map((r) => r.k), rows.map((r) => r.label), rows.map((_, i) => i + 1)],
    );
  }

  async function ids(sql: string, params: readonly unknown[]): Promise<number[]> {
    const { rows } = await t.db.query<{ id: number }>(sql, params);
    return rows.map((r) => r.id);
  }

  function statement(listOrder: ListOrder, limit: number, offset: number, kept: boolean) {
    const where = new Where('owner = $', 1);
    const rows = pageRange(where, {
      rows: `select * from page_range_rows where ${where.sql}`,
      order: listOrder,
      page: { limit, offset },
      keptTotal: kept ? (w) => `select count(*) from page_range_rows where owner = ${w.next(1)}` : undefined,
    });
    return { sql: `select id from ${rows} p ${orderSql(listOrder)}`, params: where.params };
  }

  test('every offset and limit answers the forward page, past the end included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 14 }), order, async (rows, listOrder) => {
        await fill(rows);
        for (let offset = 0; offset <= rows.length + 1; offset++) {
          for (const limit of [1, 2, 5]) {
            const forward = statement(listOrder, limit, offset, false);
            const nearer = statement(listOrder, limit, offset, true);
            assert.deepEqual(
              await ids(nearer.sql, nearer.params),
              await ids(forward.sql, forward.params),
              `${orderSql(listOrder)} limit ${limit} offset ${offset}`,
            );
          }
        }
      }),
      { numRuns: 15 },
    );
  });

  test('a page past the middle runs only the backward reading, one before it only the forward one', async () => {
    await fill(Array.from({ length: 40 }, (_, i) => ({ k: i % 4, label: null })));
    const listOrder: OrderTerm[] = [
      { column: 'k', direction: 'asc' },
      { column: 'id', direction: 'asc' },
    ];
    const plan = async (offset: number) => {
      const { sql, params } = statement(listOrder, 5, offset, true);
      const { rows } = await t.db.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, costs off, timing off, summary off) ${sql}`,
        params,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    // Each branch sorts the table (it has no index): by k ascending forwards, descending backwards.
    const branches = (text: string) => {
      const lines = text.split('\n');
      return lines.flatMap((line, i) => {
        const key = /Sort Key: page_range_rows\S*\.k( DESC)?,/.exec(lines[i + 1] ?? '');
        if (!/->\s+Sort /.test(line) || !key) return [];
        return [`${key[1] ? 'backward' : 'forward'}${/never executed/.test(line) ? ' skipped' : ''}`];
      });
    };
    assert.deepEqual(branches(await plan(30)), ['forward skipped', 'backward']);
    assert.deepEqual(branches(await plan(10)), ['forward', 'backward skipped']);
  });
});

describe('every list endpoint, on the demo tenant', () => {
  let accountId: string;
  let token: string;

  before(async () => {
    ({ accountId, token } = await startDemoTenant(t));
  });

  /** Each list, how it pages (limit/offset or page/page_size) and sorts worth crossing. */
  const LISTS = [
    { url: 'inventory_containers', paging: 'offset', sorts: ['', 'name:asc', 'image_digest:desc'] },
    { url: 'inventory_packages', paging: 'offset', sorts: ['', 'version:desc', 'critical_count:desc'] },
    { url: 'resources', paging: 'page', sorts: ['', 'kind:desc', 'namespace:asc'] },
    {
      url: 'identities',
      paging: 'page',
      sorts: ['', 'name:asc', 'last_used_at:desc', 'last_used_at:asc', 'risk_score:desc'],
    },
    { url: 'container_runtime_insights/http_requests', paging: 'offset', sorts: [''] },
    {
      url: 'container_runtime_latest_baseline_fingerprints',
      paging: 'page',
      sorts: ['', 'workload_name:asc', 'created_at:desc'],
    },
    { url: 'container_runtime_insights', paging: 'offset', sorts: ['', 'severity:desc'] },
  ] as const;

  async function get(url: string, query: string) {
    const res = await t.request({ method: 'GET', url: `/accounts/${accountId}/${url}?${query}`, token });
    assert.equal(res.status, 200, res.text);
    return res.body as { entries: unknown[]; total_count: number };
  }

  for (const { url, paging, sorts } of LISTS) {
    test(`${url}: every page is the whole list cut at its offset`, async () => {
      for (const sort of sorts) {
        const sorted = sort ? `&sort=${sort}` : '';
        const whole = await get(url, paging === 'offset' ? `limit=1000${sorted}` : `page_size=1000${sorted}`);
        const total = whole.total_count;
        assert.equal(whole.entries.length, total, `${url} fits one page`);
        // The demo has a single runtime insight: its pages past the end still take the backward branch.
        assert.ok(total >= 1, `${url} has rows to page through`);
        for (const size of [2, 7]) {
          for (let offset = 0; offset <= total; offset += size) {
            const query =
              paging === 'offset'
                ? `limit=${size}&offset=${offset}${sorted}`
                : `page_size=${size}&page=${offset / size + 1}${sorted}`;
            const page = await get(url, query);
            assert.equal(page.total_count, total, `${url}?${query} total_count`);
            assert.deepEqual(page.entries, whole.entries.slice(offset, offset + size), `${url}?${query}`);
          }
        }
      }
    });
  }

  test('a page whose offset is past 2^53 rows is the empty page, not an error', async () => {
    // The largest page a client may ask for: its offset, (page - 1) * 1000, is written into the
    // statement as a literal (page-range.ts), which must stay plain digits within a bigint.
    for (const { url, paging } of LISTS) {
      const query =
        paging === 'offset'
          ? `limit=1000&offset=${Number.MAX_SAFE_INTEGER}`
          : `page_size=1000&page=${Number.MAX_SAFE_INTEGER}`;
      const page = await get(url, query);
      assert.deepEqual(page.entries, [], `${url}?${query}`);
      assert.ok(page.total_count >= 1, `${url}?${query} total_count`);
    }
  });
});
