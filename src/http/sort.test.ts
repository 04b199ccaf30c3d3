import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ApiError, type ValidationDetail } from './errors.js';
import { orderBy, parseSort } from './sort.js';

const FIELDS = ['name', 'created_at', 'severity'] as const;
type Field = (typeof FIELDS)[number];
const field = fc.constantFrom(...FIELDS);
const direction = fc.constantFrom('asc' as const, 'desc' as const);

function rejection(parse: () => unknown): ValidationDetail {
  try {
    parse();
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.validationDetails.length, 1);
    return error.validationDetails[0] as ValidationDetail;
  }
  assert.fail('expected a 400');
}

describe('parseSort', () => {
  test('absent or empty takes the endpoint default', () => {
    assert.deepEqual(parseSort(undefined, FIELDS, 'created_at:desc'), {
      field: 'created_at',
      direction: 'desc',
    });
    assert.deepEqual(parseSort('', FIELDS, 'name:asc'), { field: 'name', direction: 'asc' });
  });

  test('field:direction is read as given, and a field alone is ascending', () => {
    fc.assert(
      fc.property(field, direction, (f, dir) => {
        assert.deepEqual(parseSort(`${f}:${dir}`, FIELDS, 'name:asc'), { field: f, direction: dir });
        assert.deepEqual(parseSort(f, FIELDS, 'name:desc'), { field: f, direction: 'asc' });
      }),
    );
  });

  test('a field off the allow-list is a 400 on `sort`, whatever the direction', () => {
    // (an empty `sort` is "not given"; `:asc` is checked below)
    const unknown = fc
      .string({ minLength: 1 })
      .filter((f) => !f.includes(':') && !(FIELDS as readonly string[]).includes(f));
    fc.assert(
      fc.property(unknown, fc.option(direction, { nil: undefined }), (f, dir) => {
        const raw = dir ? `${f}:${dir}` : f;
        const detail = rejection(() => parseSort(raw, FIELDS, 'name:asc'));
        assert.deepEqual([detail.field, detail.param, detail.code], ['sort', 'query', 'invalid_value']);
        assert.ok(detail.message.includes(`"${f}"`), detail.message);
      }),
    );
  });

  test('a direction other than asc or desc is a 400 on `sort`', () => {
    const badDirection = fc.string().filter((dir) => dir !== 'asc' && dir !== 'desc');
    fc.assert(
      fc.property(field, badDirection, (f, dir) => {
        const detail = rejection(() => parseSort(`${f}:${dir}`, FIELDS, 'name:asc'));
        assert.deepEqual([detail.field, detail.code], ['sort', 'invalid_format']);
      }),
    );
    for (const raw of ['name:ASC', 'name:', 'name:asc:desc', ' name', 'name :asc', ':asc']) {
      assert.equal(rejection(() => parseSort(raw, FIELDS, 'name:asc')).field, 'sort', raw);
    }
  });

  test('the detail names the parameter the endpoint uses', () => {
    assert.equal(rejection(() => parseSort('bogus', FIELDS, 'name:asc', 'order')).field, 'order');
  });
});

describe('orderBy', () => {
  const COLUMNS: Record<Field, string> = {
    name: 'c.name',
    created_at: 'c.created_at',
    severity: 'c.severity_rank',
  };

  test('orders by the mapped column and always ends with the tiebreak, in the same direction', () => {
    fc.assert(
      fc.property(field, direction, fc.constantFrom('c.id', 'id', 'c.uid'), (f, dir, tiebreak) => {
        const sql = orderBy({ field: f, direction: dir }, COLUMNS, tiebreak);
        assert.equal(sql, `order by ${COLUMNS[f]} ${dir}, ${tiebreak} ${dir}`);
      }),
    );
  });
});
