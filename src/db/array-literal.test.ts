import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrayLiteral } from './array-literal.js';
// pg's own conversion of an array parameter, which arrayLiteral must write identically.
import { prepareValue } from './pg-conversion.js';

test('an array literal is the text pg writes for the same array', () => {
  const values = [
    'plain',
    'with "quotes"',
    'back\\slash',
    '',
    'a,b {c}',
    'NULL',
    null,
    undefined,
    7,
    7.5,
    -0.1,
  ];
  const rows = values.map((value) => ({ value }));
  assert.equal(
    arrayLiteral(rows, (row) => row.value),
    prepareValue(values.map((value) => value ?? null)),
  );
  assert.equal(
    arrayLiteral([], () => 'x'),
    '{}',
  );
});
