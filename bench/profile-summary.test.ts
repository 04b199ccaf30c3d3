/**
 * bench/profile-summary.ts on a profile small enough to add up by hand: self and inclusive time,
 * idle left out of the busy time, a recursive function counted once per sample, and the call
 * paths into a function.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CpuProfile, callersOf, summarize } from './profile-summary.js';

const frame = (id: number, functionName: string, line: number, children: number[] = []) => ({
  id,
  callFrame: { functionName, url: 'file:///app/dist/module.js', lineNumber: line - 1 },
  children,
});

// (root) -> handler -> walk -> walk (recursion) -> hash; (root) -> (idle); handler -> hash
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', 0, [2, 6]),
    frame(2, 'handler', 10, [3, 7]),
    frame(3, 'walk', 20, [4]),
    frame(4, 'walk', 20, [5]),
    frame(5, 'hash', 30),
    frame(6, '(idle)', 0),
    frame(7, 'hash', 30),
  ],
  // microseconds: walk 2 ms, the inner walk 1, hash under walk 3, idle 10, hash under handler 4
  samples: [3, 4, 5, 6, 7, 5],
  timeDeltas: [2000, 1000, 1000, 10000, 4000, 2000],
};

test('self and inclusive time are shares of the busy samples, idle left out', () => {
  const summary = summarize(profile);
  assert.equal(summary.totalMs, 20);
  assert.equal(summary.busyMs, 10);
  assert.deepEqual(
    summary.self.map(({ name, ms, share }) => [name, ms, share]),
    [
      ['hash dist/module.js:30', 7, 0.7],
      ['walk dist/module.js:20', 3, 0.3],
    ],
  );
  const inclusive = Object.fromEntries(summary.inclusive.map(({ name, ms }) => [name, ms]));
  // The recursive walk counts each sample once: 2 + 1 + 3, not 2 + 2 * 1 + 2 * 3.
  assert.equal(inclusive['walk dist/module.js:20'], 6);
  assert.equal(inclusive['handler dist/module.js:10'], 10);
  assert.equal(inclusive['(root) dist/module.js:0'], 10);
  assert.equal(summarize(profile, 1).self.length, 1, '--top cuts the lists');
});

test('the call paths into a function, with its time under each', () => {
  const paths = callersOf(profile, 'hash', 2).map(({ name, ms }) => [name, ms]);
  assert.deepEqual(paths, [
    ['handler dist/module.js:10 < (root) dist/module.js:0', 4],
    ['walk dist/module.js:20 < walk dist/module.js:20', 3],
  ]);
});
