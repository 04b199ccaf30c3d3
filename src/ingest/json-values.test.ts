import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../http/errors.js';
import { readJsonValues } from './json-values.js';

function detailOf(read: () => unknown) {
  try {
    read();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 400);
    return error.validationDetails[0];
  }
  assert.fail('expected a 400');
}

describe('readJsonValues', () => {
  test('one document, whatever it holds', () => {
    assert.deepEqual(readJsonValues(' {"a": [1, {"b": "}"}]}\n'), {
      stream: false,
      values: [{ value: { a: [1, { b: '}' }] }, line: 1 }],
    });
  });

  test('NDJSON: one value per line, each with its line', () => {
    const { stream, values } = readJsonValues('{"a":1}\n\n{"b":"x\\"}{"}\n[3]\n');
    assert.equal(stream, true);
    assert.deepEqual(values, [
      { value: { a: 1 }, line: 1 },
      { value: { b: 'x"}{' }, line: 3 },
      { value: [3], line: 4 },
    ]);
  });

  test('concatenated pretty-printed objects, as kubectl --watch prints them', () => {
    const text = `${JSON.stringify({ type: 'ADDED', object: { a: '{[' } }, null, 2)}\n${JSON.stringify({ b: 2 }, null, 2)}`;
    const { values } = readJsonValues(text);
    assert.deepEqual(
      values.map((v) => v.line),
      [1, 7],
    );
    assert.deepEqual(values[1]?.value, { b: 2 });
  });

  test('a bad line is named by its number', () => {
    const detail = detailOf(() => readJsonValues('{"a":1}\n{"a":tru}\n{"c":3}'));
    assert.equal(detail?.code, 'invalid_format');
    assert.equal(detail?.field, 'line 2');
    assert.equal(detail?.param, 'body');
    assert.match(detail?.message ?? '', /is not valid JSON/);
  });

  test('an unterminated value, a scalar and a broken document are refused', () => {
    assert.equal(detailOf(() => readJsonValues('{"a":1}\n{"b": "open'))?.field, 'line 2');
    assert.equal(detailOf(() => readJsonValues('{"a":1}\n42\n'))?.field, 'line 2');
    assert.equal(detailOf(() => readJsonValues('{"a": }'))?.field, 'line 1');
    assert.equal(detailOf(() => readJsonValues('{"a":1}}'))?.field, 'line 1');
  });
});
