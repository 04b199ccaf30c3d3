import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  offsetList,
  offsetListParts,
  offsetListText,
  pageList,
  pageListParts,
  pageListText,
  pageToOffset,
  tenantOffsetList,
} from './paging.js';

const total = fc.integer({ min: 0, max: 5000 });
const size = fc.integer({ min: 1, max: 1000 });
const rowsOf = (count: number) => Array.from({ length: count }, (_, i) => i);

describe('offsetList', () => {
  test('has_more holds exactly when offset + entries < total', () => {
    fc.assert(
      fc.property(total, fc.nat(6000), fc.nat(1000), (count, offset, returned) => {
        const entries = rowsOf(returned);
        const body = offsetList(entries, count, { limit: 1000, offset });
        assert.deepEqual(body, { entries, has_more: offset + returned < count, total_count: count });
      }),
    );
  });

  test('a client paging until has_more is false sees every row once, then the end is empty', () => {
    fc.assert(
      fc.property(total, size, (count, limit) => {
        const rows = rowsOf(count);
        const seen: number[] = [];
        let offset = 0;
        for (let calls = 0; ; calls++) {
          assert.ok(calls <= Math.ceil(count / limit), 'paging must end');
          const body = offsetList(rows.slice(offset, offset + limit), count, { limit, offset });
          seen.push(...body.entries);
          offset += body.entries.length;
          if (!body.has_more) break;
        }
        assert.deepEqual(seen, rows);
        const past = offsetList(rows.slice(count + limit), count, { limit, offset: count + limit });
        assert.deepEqual(past, { entries: [], has_more: false, total_count: count });
      }),
    );
  });
});

describe('tenantOffsetList', () => {
  test('carries all four fields, current_offset being the requested offset', () => {
    fc.assert(
      fc.property(total, fc.nat(6000), fc.nat(50), (count, offset, returned) => {
        const entries = rowsOf(returned).map(String);
        const body = tenantOffsetList(entries, count, { limit: 50, offset });
        assert.deepEqual(Object.keys(body).sort(), ['current_offset', 'entries', 'has_more', 'total_count']);
        assert.equal(body.current_offset, offset);
        assert.equal(body.has_more, offset + returned < count);
        assert.equal(body.total_count, count);
        assert.equal(body.entries, entries);
      }),
    );
  });
});

describe('pageList', () => {
  test('page_count is ceil(total / page_size), 0 for an empty list', () => {
    fc.assert(
      fc.property(total, size, fc.integer({ min: 1, max: 100 }), (count, pageSize, page) => {
        const { page_count, ...rest } = pageList([], count, { page, pageSize });
        // the smallest number of pages that holds every row
        assert.ok(page_count * pageSize >= count);
        assert.ok(page_count === 0 || (page_count - 1) * pageSize < count);
        assert.deepEqual(rest, { entries: [], page, page_size: pageSize, total_count: count });
      }),
    );
    assert.equal(pageList([], 0, { page: 1, pageSize: 50 }).page_count, 0);
    assert.equal(pageList([], 1, { page: 1, pageSize: 50 }).page_count, 1);
    assert.equal(pageList([], 100, { page: 1, pageSize: 50 }).page_count, 2);
    assert.equal(pageList([], 101, { page: 1, pageSize: 50 }).page_count, 3);
  });

  test('pages 1..page_count through pageToOffset cover every row once; later pages are empty', () => {
    fc.assert(
      fc.property(total, size, fc.integer({ min: 1, max: 3 }), (count, pageSize, beyond) => {
        const rows = rowsOf(count);
        const read = (page: number) => {
          const { limit, offset } = pageToOffset({ page, pageSize });
          return pageList(rows.slice(offset, offset + limit), count, { page, pageSize });
        };
        const first = read(1);
        const seen: number[] = [];
        for (let page = 1; page <= first.page_count; page++) seen.push(...read(page).entries);
        assert.deepEqual(seen, rows);
        const past = read(first.page_count + beyond);
        assert.deepEqual(past.entries, []);
        assert.equal(past.total_count, count);
        assert.equal(past.page_count, first.page_count);
      }),
    );
  });

  test('pageToOffset: page n starts after n-1 full pages', () => {
    assert.deepEqual(pageToOffset({ page: 1, pageSize: 50 }), { limit: 50, offset: 0 });
    assert.deepEqual(pageToOffset({ page: 3, pageSize: 20 }), { limit: 20, offset: 40 });
  });
});

test('pageListParts joins to the JSON of pageList, entries in pieces or whole', () => {
  const request = { page: 2, pageSize: 2 };
  const entries = [{ id: 'a', n: 1 }, { id: 'b' }];
  const expected = JSON.stringify(pageList(entries, 5, request));
  const pieced = pageListParts([['{"id":"a",', '"n":1}'], ['{"id":"b"}']], 5, request);
  assert.equal(pieced.join(''), expected);
  assert.equal(pageListParts([], 0, request).join(''), JSON.stringify(pageList([], 0, request)));
});

test('offsetListText, offsetListParts and pageListText write the JSON of offsetList and pageList around entry texts', () => {
  fc.assert(
    fc.property(
      fc.array(fc.dictionary(fc.string(), fc.jsonValue())),
      total,
      fc.nat(6000),
      (values, count, at) => {
        const texts = values.map((value) => JSON.stringify(value));
        const offsetBody = JSON.stringify(offsetList(values, count, { limit: 100, offset: at }));
        assert.equal(offsetListText(texts, count, { limit: 100, offset: at }), offsetBody);
        const bytes = texts.map((text) => Buffer.from(text));
        const parts = offsetListParts(bytes, count, { limit: 100, offset: at });
        assert.equal(Buffer.concat(parts.map((part) => Buffer.from(part))).toString(), offsetBody);
        const request = { page: 1 + (at % 50), pageSize: 1 + (at % 200) };
        assert.equal(pageListText(texts, count, request), JSON.stringify(pageList(values, count, request)));
      },
    ),
  );
});
