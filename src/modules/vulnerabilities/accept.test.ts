import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiate } from './accept.js';

const offers = ['application/json', 'text/csv'] as const;

test('negotiate picks the best offered type by quality, then specificity, then offer order', () => {
  const cases: [string | undefined, string | null][] = [
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['text/csv', 'text/csv'],
    ['TEXT/CSV; charset=utf-8', 'text/csv'],
    ['text/*;q=0.8, application/json;q=0.5', 'text/csv'],
    ['*/*;q=0.1, text/csv;q=0', 'application/json'],
    ['application/*;q=0, */*', 'text/csv'],
    ['text/csv;q=1.0, application/json;q=1', 'application/json'],
    ['text/csv;q=2', null],
    ['application/xml', null],
    ['garbage', null],
  ];
  for (const [accept, expected] of cases) assert.equal(negotiate(accept, offers), expected, String(accept));
});
