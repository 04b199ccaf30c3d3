import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyEvents } from './engine.js';
import { renderFingerprint, truncateFingerprint } from './render-fingerprint.js';
import { at, connect, exec, KEY, open } from './testing.js';

const options = {
  window: { durationSeconds: 60 },
  trustedPrefixes: [{ cidr: '198.51.100.0/24', name: 'payments' }],
};

const learned = [
  exec(at(0), 1, 0, 'node', ['server.js']),
  ...['a', 'b', 'c'].map((job, i) => exec(at(1 + i), 10 + i, 1, `job-${job}`)),
  connect(at(5), 1, 'node', '198.51.100.10', 443),
  connect(at(6), 1, 'node', '198.51.100.11', 443),
  connect(at(7), 1, 'node', '198.51.100.12', 8443),
];

describe('fingerprint rendering', () => {
  const state = applyEvents(
    null,
    KEY,
    [...learned, exec(at(100), 50, 1, 'sh', ['-c', 'id'], '/bin/sh')],
    options,
  );

  test('has the description shape, with trusted prefixes per process and repetition', () => {
    const fingerprint = renderFingerprint(state, 'baseline');
    assert.deepEqual(Object.keys(fingerprint), ['apiVersion', 'kind', 'metadata', 'containers']);
    assert.equal(fingerprint.kind, 'Fingerprint');
    assert.equal(fingerprint.metadata.creationTimestamp, at(60), 'a baseline is dated by its capture');
    const container = fingerprint.containers[0]!;
    assert.deepEqual(
      [container.id, container.name, container.imageName],
      [state.container.id, 'app', 'ghcr.io/shop/web:1.0.0'],
    );
    const [node] = container.processes;
    assert.deepEqual(Object.keys(node!).sort(), [
      'children',
      'connections',
      'drift',
      'files',
      'gid',
      'id',
      'parentId',
      'programs',
      'repetition',
      'timestamp',
      'trustedIPPrefixes',
      'uid',
    ]);
    assert.deepEqual(node!.trustedIPPrefixes, [
      { cidr: '198.51.100.0/24', name: 'payments', port: 443 },
      { cidr: '198.51.100.0/24', name: 'payments', port: 8443 },
    ]);
    assert.deepEqual(
      node!.connections.map((c) => c.trustedCIDR),
      ['198.51.100.0/24', '198.51.100.0/24', '198.51.100.0/24'],
    );
    assert.deepEqual(node!.repetition, { execCount: 1, recentTimestamp: at(0) });
    assert.deepEqual([node!.parentId, node!.children[0]!.parentId], ['', node!.id]);
  });

  test('children_limit keeps drifted children first, then the most recent; most_recent_limit trims items', () => {
    const ongoing = renderFingerprint(
      applyEvents(
        state,
        KEY,
        [
          exec(at(200), 11, 1, 'job-b'),
          exec(at(201), 12, 1, 'job-c'),
          ...[1, 2, 3, 4].map((n) => open(at(210 + n), 1, 'node', `/srv/file-${'abcd'[n - 1]}`)),
        ],
        options,
      ),
      'ongoing',
    );
    const root = ongoing.containers[0]!.processes[0]!;
    assert.deepEqual(
      root.children.map((c) => c.programs[0]!.comm),
      ['sh', 'job-b', 'job-c'],
    );
    const cut = truncateFingerprint(ongoing, { childrenLimit: 2, mostRecentLimit: 2 }).containers[0]!
      .processes[0]!;
    assert.deepEqual(
      cut.children.map((c) => c.programs[0]!.comm),
      ['sh', 'job-c'],
      'the drifted shell, then the most recent',
    );
    assert.deepEqual(
      cut.files.map((f) => f.path),
      ['/srv/file-c', '/srv/file-d'],
    );
    assert.equal(root.children.length, 3, 'the input fingerprint is not changed');
  });
});
