import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyEvents, captureIfWindowElapsed, type EngineOptions } from './engine.js';
import type { RuntimeEvent } from './event-schema.js';
import { type FingerprintProcess, renderFingerprint } from './render-fingerprint.js';
import type { WorkloadContainerState } from './state.js';
import { at, connect, exec, KEY, open } from './testing.js';

const run = (
  events: RuntimeEvent[],
  options: EngineOptions = {},
  previous: WorkloadContainerState | null = null,
) => applyEvents(previous, KEY, events, options);

const MINUTE = { window: { durationSeconds: 60 } };

/** The rendered ongoing tree as `comm -> node`, programs and files flattened, for assertions. */
function nodesByComm(state: WorkloadContainerState, which: 'baseline' | 'ongoing') {
  const out = new Map<string, FingerprintProcess>();
  const walk = (p: FingerprintProcess, path: string) => {
    const name = `${path}${p.programs[0]?.comm ?? '?'}`;
    out.set(name, p);
    for (const child of p.children) walk(child, `${name} > `);
  };
  for (const root of renderFingerprint(state, which).containers[0]!.processes) walk(root, '');
  return out;
}

describe('learning window', () => {
  test('closes by time: an event one millisecond before the end is learned, one at the end is compared', () => {
    const start = exec(at(0), 1, 0, 'node', ['server.js']);
    const learned = run([start, open(at(59.999), 1, 'node', '/etc/hosts')], MINUTE);
    assert.equal(learned.baselineCapturedAt, null);
    assert.equal(learned.baseline.eventCount, 2);

    const after = run([open(at(60), 1, 'node', '/etc/passwd')], MINUTE, learned);
    assert.equal(
      after.baselineCapturedAt,
      at(60),
      'captured at the end of the window, not at the late event',
    );
    assert.equal(after.baseline.eventCount, 2);
    assert.equal(after.ongoing.eventCount, 1);
    assert.equal(after.ongoing.driftEvents, 1);
  });

  test('the window starts at the first event, not at the first push', () => {
    const state = run([exec(at(30), 1, 0, 'node'), exec(at(89), 2, 1, 'worker')], MINUTE);
    assert.equal(state.baselineCapturedAt, null, 'the window runs from 00:30 to 01:30');
    assert.equal(run([exec(at(90), 3, 1, 'worker')], MINUTE, state).baselineCapturedAt, at(90));
  });

  test('closes by count: the n-th learned event captures the baseline at its time', () => {
    const options = { window: { durationSeconds: 3600, maxEvents: 3 } };
    const events = [
      exec(at(0), 1, 0, 'node'),
      open(at(1), 1, 'node', '/a'),
      open(at(2), 1, 'node', '/b'),
      open(at(3), 1, 'node', '/c'),
    ];
    const two = run(events.slice(0, 2), options);
    assert.equal(two.baselineCapturedAt, null);
    const state = run(events, options);
    assert.equal(state.baselineCapturedAt, at(2));
    assert.equal(state.baseline.eventCount, 3);
    assert.deepEqual(Object.keys(state.baseline.nodes.node!.files), ['/a', '/b']);
    assert.equal(state.ongoing.driftEvents, 1, '/c came after the capture');
  });

  test('the default window is one hour, with no count limit', () => {
    const events = Array.from({ length: 500 }, (_, i) => open(at(i * 7), 1, 'node', `/data/${i % 3}.txt`));
    const state = run(events);
    assert.equal(state.baselineCapturedAt, null, '500 events over 58 minutes');
    assert.equal(run([open(at(3600), 1, 'node', '/data/0.txt')], {}, state).baselineCapturedAt, at(3600));
  });

  test('the wall clock can close a window no event closes', () => {
    const state = run([exec(at(0), 1, 0, 'node')], MINUTE);
    const snapshot = structuredClone(state);
    assert.equal(captureIfWindowElapsed(state, at(59), MINUTE).baselineCapturedAt, null);
    assert.equal(captureIfWindowElapsed(state, at(600), MINUTE).baselineCapturedAt, at(60));
    assert.deepEqual(state, snapshot, 'the input state is not changed');
  });
});

describe('drift', () => {
  const baseline = [
    exec(at(0), 1, 0, 'node', ['server.js'], '/usr/local/bin/node'),
    open(at(1), 1, 'node', '/etc/hosts'),
    connect(at(2), 1, 'node', '10.96.30.5', 5432, { k8s_name: 'postgres', k8s_namespace: 'shop' }),
  ];

  test('is marked on the program, file, connection and process node, and never in the baseline', () => {
    const state = run(
      [
        ...baseline,
        // after the capture: covered activity ...
        open(at(61), 1, 'node', '/etc/hosts'),
        connect(at(62), 1, 'node', '10.96.30.9', 5432, { k8s_name: 'postgres', k8s_namespace: 'shop' }),
        // ... and drift at every level
        open(at(63), 1, 'node', '/etc/passwd'),
        connect(at(64), 1, 'node', '203.0.113.7', 443),
        exec(at(65), 40, 1, 'sh', ['-c', 'id'], '/bin/sh'),
        open(at(66), 40, 'sh', '/etc/hosts', ['O_WRONLY', 'O_TRUNC']),
      ],
      MINUTE,
    );
    const ongoing = nodesByComm(state, 'ongoing');
    const node = ongoing.get('?')!; // the app's node ran no program after the capture
    assert.equal(node.drift, true, 'a known process with drifted files or connections is marked');
    assert.deepEqual(
      node.files.map((f) => [f.path, f.drift]),
      [
        ['/etc/hosts', false],
        ['/etc/passwd', true],
      ],
    );
    assert.deepEqual(
      node.connections.map((c) => [c.address, c.drift]),
      [
        ['10.96.30.9', false],
        ['203.0.113.7', true],
      ],
      'a pod address change behind the same service name is no drift',
    );
    const shell = node.children[0]!;
    assert.equal(shell.drift, true);
    assert.deepEqual(
      shell.programs.map((p) => [p.comm, p.drift]),
      [['sh', true]],
    );
    assert.deepEqual(
      shell.files.map((f) => [f.path, f.drift]),
      [['/etc/hosts', true]],
      'a write is not covered by a read',
    );
    assert.equal(state.ongoing.driftEvents, 4);

    const base = renderFingerprint(state, 'baseline').containers[0]!.processes;
    const anyDrift = (p: FingerprintProcess): boolean =>
      p.drift ||
      p.programs.some((x) => x.drift) ||
      p.files.some((x) => x.drift) ||
      p.connections.some((x) => x.drift) ||
      p.children.some(anyDrift);
    assert.equal(base.some(anyDrift), false);
  });

  test('an unchanged workload has no drift and raises nothing', () => {
    const again = [
      exec(at(70), 1, 0, 'node', ['server.js'], '/usr/local/bin/node'),
      open(at(71), 1, 'node', '/etc/hosts'),
    ];
    const state = run([...baseline, ...again], MINUTE);
    assert.equal(state.ongoing.driftEvents, 0);
    assert.deepEqual(state.signals, {});
    assert.equal(nodesByComm(state, 'ongoing').get('node')!.drift, false);
  });

  test('a process whose parent the sensor never saw is adopted by its known node, not taken for a new root', () => {
    const learned = run(
      [
        exec(at(0), 1, 0, 'tini'),
        exec(at(1), 7, 1, 'node', ['server.js']),
        open(at(2), 7, 'node', '/etc/hosts'),
      ],
      MINUTE,
    );
    // The pod restarted (new container id) and the sensor came up after its processes started.
    const newId = `containerd://${'cd'.repeat(32)}`;
    const restarted = [
      open(at(120), 9, 'node', '/etc/hosts'),
      connect(at(121), 9, 'node', '203.0.113.9', 443),
    ];
    for (const event of restarted) event.container = { ...event.container, id: newId };
    const state = run(restarted, MINUTE, learned);
    assert.deepEqual(Object.keys(state.ongoing.nodes), ['tini', 'tini > node']);
    assert.equal(state.ongoing.driftEvents, 1, 'only the new connection drifts');
    assert.equal(state.container.id, newId);
  });
});

describe('process tree and program patterns', () => {
  test('pid/ppid nest children under their parents', () => {
    const state = run([
      exec(at(0), 1, 0, 'nginx'),
      exec(at(1), 7, 1, 'sh', ['-c', 'reload']),
      exec(at(2), 8, 7, 'nginx', ['-s', 'reload']),
      exec(at(3), 9, 1, 'logrotate'),
    ]);
    const [root] = renderFingerprint(state, 'baseline').containers[0]!.processes;
    assert.equal(root!.programs[0]!.comm, 'nginx');
    assert.deepEqual(
      root!.children.map((c) => c.programs[0]!.comm),
      ['sh', 'logrotate'],
    );
    const sh = root!.children[0]!;
    assert.equal(sh.parentId, root!.id);
    assert.equal(sh.children[0]!.programs[0]!.comm, 'nginx');
    assert.equal(sh.children[0]!.parentId, sh.id);
  });

  test('arguments that vary in the same position collapse into one pattern with bounded samples', () => {
    const runs = [30, 45, 12, 99, 7, 61, 5].map((n, i) => exec(at(i), 100 + i, 1, 'sleep', [String(n)]));
    const state = run([exec(at(0), 1, 0, 'node'), ...runs], { limits: { maxSampleArgs: 3 } });
    const sleep = nodesByComm(state, 'baseline').get('node > sleep')!;
    assert.equal(sleep.programs.length, 1);
    assert.deepEqual(sleep.programs[0]!.args, ['{num}']);
    assert.equal(sleep.programs[0]!.hasPattern, true);
    assert.deepEqual(sleep.programs[0]!.sampleArgs, [['30'], ['45'], ['12']]);
    assert.deepEqual(sleep.repetition.execCount, 7);

    const later = run([exec(at(4000), 200, 1, 'sleep', ['1234'])], {}, state);
    assert.equal(later.ongoing.driftEvents, 0, 'a new value of a collapsed position is covered');
  });

  test('genuinely different arguments stay separate programs; one run has no pattern', () => {
    const state = run([
      exec(at(0), 1, 0, 'node'),
      exec(at(1), 10, 1, 'sh', ['-c', 'nginx -t']),
      exec(at(2), 11, 1, 'sh', ['-c', 'cat /etc/shadow']),
      exec(at(3), 12, 1, 'sh', ['-c', 'nginx -t']),
      exec(at(4), 13, 1, 'worker', ['--id', '3f1c9a4e-7b2d-4c8e-9a1f-0d2e3c4b5a69']),
      exec(at(5), 14, 1, 'worker', ['--id', '3f1c9a4e-7b2d-4c8e-9a1f-0d2e3c4b5a69', '--verbose']),
    ]);
    const nodes = nodesByComm(state, 'baseline');
    const sh = nodes.get('node > sh')!;
    assert.deepEqual(
      sh.programs.map((p) => [p.args, p.hasPattern, p.sampleArgs.length]),
      [
        [['-c', 'nginx -t'], false, 1],
        [['-c', 'cat /etc/shadow'], false, 1],
      ],
    );
    assert.equal(
      nodes.get('node > worker')!.programs.length,
      2,
      'a different argument count is another program',
    );
  });

  test('an exec without executable path is covered by the same program run from a known path', () => {
    const learned = run(
      [exec(at(0), 1, 0, 'node'), exec(at(1), 5, 1, 'sleep', ['30'], '/bin/sleep')],
      MINUTE,
    );
    const noExe = exec(at(100), 6, 1, 'sleep', ['45']) as { process: Record<string, unknown> } & RuntimeEvent;
    delete noExe.process.exe;
    assert.equal(run([noExe], MINUTE, learned).ongoing.driftEvents, 0);
    const elsewhere = exec(at(100), 6, 1, 'sleep', ['45'], '/tmp/sleep');
    assert.equal(run([elsewhere], MINUTE, learned).ongoing.driftEvents, 1, 'another path is another binary');
  });

  test('the tree depth is capped: deeper processes fold into the deepest node', () => {
    const chain = Array.from({ length: 8 }, (_, i) => exec(at(i), i + 1, i, 'sh'));
    const state = run(chain, { limits: { maxTreeDepth: 3 } });
    assert.deepEqual(Object.keys(state.baseline.nodes), ['sh', 'sh > sh', 'sh > sh > sh']);
    assert.equal(state.baseline.nodes['sh > sh > sh']!.execCount, 6);
  });
});

describe('state', () => {
  const events = [
    exec(at(0), 1, 0, 'node', ['server.js']),
    open(at(10), 1, 'node', '/etc/hosts'),
    exec(at(20), 2, 1, 'sleep', ['5']),
    exec(at(70), 3, 1, 'sleep', ['9']),
    exec(at(80), 4, 1, 'sh', ['-c', 'curl http://203.0.113.7/x']),
    connect(at(81), 4, 'sh', '203.0.113.7', 80),
  ];

  test('pushes applied one by one through JSON give the state of one push, and inputs are not changed', () => {
    const whole = run(events, MINUTE);
    let state: WorkloadContainerState | null = null;
    for (const event of events) {
      const before: string | null = state === null ? null : JSON.stringify(state);
      const next: WorkloadContainerState = run([event], MINUTE, state);
      if (before !== null) assert.equal(JSON.stringify(state), before, 'the previous state is not mutated');
      state = JSON.parse(JSON.stringify(next)) as WorkloadContainerState;
    }
    assert.deepEqual(state, JSON.parse(JSON.stringify(whole)));
  });

  test('events are applied in timestamp order within a push', () => {
    const shuffled = [events[3]!, events[0]!, events[5]!, events[2]!, events[4]!, events[1]!];
    assert.deepEqual(run(shuffled, MINUTE), run(events, MINUTE));
  });

  test('caps bound what is stored, and drift past a cap still raises signals', () => {
    const limits = { maxFiles: 2, maxConnections: 1 };
    const learned = run(
      [
        exec(at(0), 1, 0, 'node'),
        open(at(1), 1, 'node', '/a'),
        open(at(2), 1, 'node', '/b'),
        open(at(3), 1, 'node', '/c'),
      ],
      { ...MINUTE, limits },
    );
    assert.deepEqual(learned.baseline.totals.files, 2);
    assert.deepEqual(learned.baseline.dropped.files, 1);
    const later = run(
      [connect(at(61), 1, 'node', '10.0.0.1', 80), connect(at(62), 1, 'node', '203.0.113.5', 443)],
      { ...MINUTE, limits },
      learned,
    );
    assert.equal(later.ongoing.totals.connections, 1);
    assert.equal(later.ongoing.dropped.connections, 1);
    assert.ok(
      later.signals['untrusted_egress|203.0.113.5:443'],
      'the dropped connection still raised its signal',
    );
  });

  test('the pid table is bounded and evicts the least recently started process', () => {
    const many = Array.from({ length: 10 }, (_, i) => exec(at(i), 100 + i, 1, 'job'));
    const state = run([exec(at(0), 1, 0, 'node'), ...many], { limits: { maxTrackedPids: 4 } });
    assert.equal(Object.keys(state.pids).length, 4);
    assert.deepEqual(
      Object.keys(state.pids).map((key) => key.split('#')[1]),
      ['106', '107', '108', '109'],
    );
  });
});
