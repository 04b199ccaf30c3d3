import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ApiError, type ValidationDetail } from './errors.js';
import { booleanFilter, formatFilters, parseFilters, parseList } from './filters.js';

const ALLOWED = ['severity', 'name', 'image', 'cluster_id'] as const;
type Key = (typeof ALLOWED)[number];

/** Any unicode text, with the grammar's special characters (`:` `,` `\`) and spaces made common. */
const value = fc.string({
  unit: fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(':', ',', '\\', ' ', '\\,', '\\\\') },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  ),
  maxLength: 20,
});
const key = fc.constantFrom(...ALLOWED);

/** The single validation detail of the 400 that `parse` throws. */
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

describe('parseFilters', () => {
  test('formatFilters then parseFilters gives back the same filters, whatever the values hold', () => {
    const filters = fc.uniqueArray(fc.tuple(key, fc.array(value, { minLength: 1, maxLength: 4 })), {
      selector: ([k]) => k,
      minLength: 1,
    });
    fc.assert(
      fc.property(filters, (entries) => {
        const parsed = parseFilters(formatFilters(entries), ALLOWED);
        assert.deepEqual([...parsed], entries);
      }),
    );
  });

  test('the same key twice is an OR: every value kept, in the order given', () => {
    const pairs = fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(pairs, (list) => {
        const parsed = parseFilters(formatFilters(list.map(([k, v]) => [k, [v]])), ALLOWED);
        const keysInOrder = [...new Set(list.map(([k]) => k))];
        assert.deepEqual([...parsed.keys()], keysInOrder);
        for (const k of keysInOrder) {
          assert.deepEqual(
            parsed.get(k),
            list.filter(([other]) => other === k).map(([, v]) => v),
          );
        }
      }),
    );
  });

  test('a value is split from its key at the first colon only', () => {
    const plain = value.map((text) => text.replace(/[,\\]/g, ''));
    fc.assert(
      fc.property(key, plain, plain, (k, left, right) => {
        const text = `${left}:${right}`;
        assert.deepEqual(parseFilters(`${k}:${text}`, ALLOWED).get(k), [text]);
      }),
    );
    assert.deepEqual(parseFilters('image:nginx:1.25', ALLOWED).get('image'), ['nginx:1.25']);
    assert.deepEqual(parseFilters('name:', ALLOWED).get('name'), ['']);
  });

  test('escapes: \\, is a comma, \\\\ a backslash, a backslash before anything else stays', () => {
    const parsed = parseFilters('name:a\\,b,image:c\\\\,severity:d\\e,cluster_id:\\', ALLOWED);
    assert.deepEqual(
      [...parsed],
      [
        ['name', ['a,b']],
        ['image', ['c\\']],
        ['severity', ['d\\e']],
        ['cluster_id', ['\\']],
      ],
    );
  });

  test('keys may be padded with spaces; values are kept verbatim', () => {
    const parsed = parseFilters(' severity :  high ', ALLOWED);
    assert.deepEqual([...parsed], [['severity', ['  high ']]]);
  });

  test('an unknown key is a 400 naming the parameter and the key', () => {
    const unknown = fc
      .string({ minLength: 1, maxLength: 20 })
      .filter(
        (k) => k.trim() === k && k !== '' && !/[:,\\]/.test(k) && !(ALLOWED as readonly string[]).includes(k),
      );
    fc.assert(
      fc.property(unknown, fc.array(fc.tuple(key, value), { maxLength: 3 }), value, (bad, valid, v) => {
        const raw = formatFilters([...valid.map(([k, x]): [string, string[]] => [k, [x]]), [bad, [v]]]);
        const detail = rejection(() => parseFilters(raw, ALLOWED));
        assert.equal(detail.field, 'filters');
        assert.equal(detail.param, 'query');
        assert.equal(detail.code, 'invalid_value');
        assert.ok(detail.message.includes(`"${bad}"`), detail.message);
      }),
    );
  });

  test('keys are case-sensitive', () => {
    assert.equal(rejection(() => parseFilters('Severity:high', ALLOWED)).field, 'filters');
  });

  test('an item without a colon or with an empty key is a 400', () => {
    const noColon = fc.string({ minLength: 1 }).filter((part) => part.trim() !== '' && !/[:,\\]/.test(part));
    fc.assert(
      fc.property(noColon, (part) => {
        const detail = rejection(() => parseFilters(`severity:high,${part}`, ALLOWED));
        assert.equal(detail.field, 'filters');
        assert.equal(detail.code, 'invalid_format');
      }),
    );
    for (const raw of [':high', '  :high', 'severity:high,:x', 'severity']) {
      const detail = rejection(() => parseFilters(raw, ALLOWED));
      assert.deepEqual([detail.field, detail.code], ['filters', 'invalid_format'], raw);
    }
  });

  test('absent, empty and empty items mean no filters', () => {
    assert.equal(parseFilters(undefined, ALLOWED).size, 0);
    assert.equal(parseFilters('', ALLOWED).size, 0);
    assert.equal(parseFilters(', ,', ALLOWED).size, 0);
    assert.deepEqual([...parseFilters('name:a,,', ALLOWED)], [['name', ['a']]]);
  });

  test('an endpoint with no filter keys refuses any key, and the detail names its own parameter', () => {
    const detail = rejection(() => parseFilters('name:a', [] as Key[], 'identity_filters'));
    assert.equal(detail.field, 'identity_filters');
    assert.match(detail.message, /"name".*\(none\)/);
  });
});

describe('booleanFilter', () => {
  test('true, false, either (no constraint), or a 400', () => {
    assert.equal(booleanFilter('in_use', undefined), undefined);
    assert.equal(booleanFilter('in_use', ['true']), true);
    assert.equal(booleanFilter('in_use', ['FALSE']), false);
    assert.equal(booleanFilter('in_use', ['true', 'false']), undefined);
    const detail = rejection(() => booleanFilter('in_use', ['yes']));
    assert.equal(detail.field, 'filters');
    assert.match(detail.message, /in_use/);
  });
});

describe('parseList', () => {
  test('comma-joined items, trimmed, empty ones dropped', () => {
    assert.deepEqual(parseList(undefined), []);
    assert.deepEqual(parseList(''), []);
    assert.deepEqual(parseList('a, b,,c,'), ['a', 'b', 'c']);
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1 }).filter((s) => !s.includes(',') && s.trim() === s && s !== '')),
        (items) => {
          assert.deepEqual(parseList(items.join(',')), items);
        },
      ),
    );
  });
});
