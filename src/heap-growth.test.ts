import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from './heap-growth.js';

test('the server sets its heap growing factor unless node was started with one', () => {
  assert.equal(heapGrowthFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  assert.equal(heapGrowthFlag(['--enable-source-maps']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // V8 accepts both spellings; the operator's value wins either way.
  assert.equal(heapGrowthFlag(['--heap-growing-percent=100']), undefined);
  assert.equal(heapGrowthFlag(['--heap_growing_percent=20']), undefined);
  // A flag that merely starts the same way is not the operator's choice.
  assert.equal(
    heapGrowthFlag(['--heap-growing-percentage=5']),
    `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
  );
});
