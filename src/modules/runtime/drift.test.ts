/**
 * Drift marking at every level of the fingerprint, argument patterns, and the truncation
 * parameters of one insight (#6), read back through the API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import {
  connect,
  exec,
  fileOpen,
  getJson,
  pushOk,
  putSettings,
  type RuntimeTarget,
  WEB,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Process {
  id: string;
  drift: boolean;
  programs: { comm: string; args: string[]; drift: boolean; hasPattern: boolean; sampleArgs: string[][] }[];
  files: { path: string; drift: boolean }[];
  connections: { address: string; port: number; drift: boolean }[];
  children: Process[];
}

/**
 * The node of a lineage: the one top-level process (the server, which in the ongoing fingerprint
 * ran nothing new and so lists no program), then children by the program they ran.
 */
function node(fingerprint: { containers: { processes: Process[] }[] }, ...path: string[]): Process {
  const roots = fingerprint.containers[0]!.processes;
  assert.equal(roots.length, 1);
  let found = roots[0]!;
  for (const name of path.slice(1)) {
    const next = found.children.find((p) => commOf(p) === name);
    assert.ok(next, `no process ${path.join(' > ')}`);
    found = next;
  }
  return found;
}
const commOf = (p: Process) => p.programs[0]?.comm ?? '';

const server = { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' };
const LEARNED = [
  exec(WEB, 0, server),
  exec(WEB, 5, { pid: 10, ppid: 1, comm: 'sleep', exe: '/bin/sleep', args: ['30'] }),
  exec(WEB, 6, { pid: 11, ppid: 1, comm: 'sleep', exe: '/bin/sleep', args: ['45'] }),
  exec(WEB, 7, { pid: 12, ppid: 1, comm: 'sh', exe: '/bin/sh', args: ['-c', 'nginx -t'] }),
  exec(WEB, 8, { pid: 13, ppid: 1, comm: 'sh', exe: '/bin/sh', args: ['-c', 'nginx -s reload'] }),
  fileOpen(WEB, 9, 1, 'server', '/app/config.yaml'),
  connect(WEB, 10, 1, 'server', '10.96.0.10', 5432),
];
const LATER = [
  exec(WEB, 100, { pid: 20, ppid: 1, comm: 'sleep', exe: '/bin/sleep', args: ['60'] }),
  exec(WEB, 101, { pid: 21, ppid: 1, comm: 'sh', exe: '/bin/sh', args: ['-c', 'cat /etc/shadow'] }),
  exec(WEB, 102, { pid: 22, ppid: 21, comm: 'cat', exe: '/bin/cat', args: ['/etc/shadow'] }),
  fileOpen(WEB, 102.5, 22, 'cat', '/etc/shadow'),
  fileOpen(WEB, 103, 1, 'server', '/app/config.yaml'),
  fileOpen(WEB, 104, 1, 'server', '/app/secrets.env'),
  connect(WEB, 105, 1, 'server', '10.96.0.10', 5432),
  connect(WEB, 106, 1, 'server', '203.0.113.5', 443),
];

describe('a workload container that learned, then drifted', () => {
  let x: RuntimeTarget;
  let insightId: string;
  const url = (query = '') => `/accounts/${x.accountId}/container_runtime_insights/${insightId}${query}`;

  before(async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'drift');
    x = { token: tenant.adminToken, accountId: tenant.accountId, clusterId: cluster.id };
    await putSettings(t, x, { learning_window_seconds: 60 });
    await pushOk(t, x, LEARNED);
    const result = await pushOk(t, x, LATER);
    assert.equal(result.baselines_captured, 1);
    const list = await getJson(t, x.token, `/accounts/${x.accountId}/container_runtime_insights`);
    insightId = list.entries[0].id;
  });

  test('varying arguments collapse into one pattern; different fixed text stays two programs', async () => {
    const { baseline } = await getJson(t, x.token, url());
    const sleep = node(baseline, 'server', 'sleep').programs;
    assert.equal(sleep.length, 1);
    assert.equal(sleep[0]!.hasPattern, true);
    assert.deepEqual(sleep[0]!.args, ['{num}']);
    assert.deepEqual(sleep[0]!.sampleArgs, [['30'], ['45']]);
    const sh = node(baseline, 'server', 'sh').programs;
    assert.deepEqual(sh.map((p) => [p.args, p.hasPattern]).sort(), [
      [['-c', 'nginx -s reload'], false],
      [['-c', 'nginx -t'], false],
    ]);
    assert.ok(
      JSON.stringify(baseline).includes('"drift":false') &&
        !JSON.stringify(baseline).includes('"drift":true'),
      'nothing in a baseline is drift',
    );
  });

  test('drift is marked on the program, file, connection and process that the baseline does not cover', async () => {
    const { ongoing, hasDrift, state } = await getJson(t, x.token, url());
    assert.equal(hasDrift, true);
    assert.equal(state, 'drift');

    const root = node(ongoing, 'server');
    assert.equal(root.drift, true, 'a known process with a drifted file and connection');
    assert.deepEqual(root.files.map((f) => [f.path, f.drift]).sort(), [
      ['/app/config.yaml', false],
      ['/app/secrets.env', true],
    ]);
    assert.deepEqual(root.connections.map((c) => [c.address, c.port, c.drift]).sort(), [
      ['10.96.0.10', 5432, false],
      ['203.0.113.5', 443, true],
    ]);

    const sleep = node(ongoing, 'server', 'sleep');
    assert.equal(sleep.drift, false, 'sleep 60 matches the learned pattern');
    assert.equal(sleep.programs[0]!.drift, false);

    const sh = node(ongoing, 'server', 'sh');
    assert.equal(sh.drift, true, 'a known process running a program with new fixed text');
    assert.deepEqual(
      sh.programs.map((p) => [p.args, p.drift]),
      [[['-c', 'cat /etc/shadow'], true]],
    );

    const cat = node(ongoing, 'server', 'sh', 'cat');
    assert.equal(cat.drift, true, 'a new process');
    assert.deepEqual(
      cat.files.map((f) => [f.path, f.drift]),
      [['/etc/shadow', true]],
    );
  });

  test('the analysis names the rules that hit, with ATT&CK techniques', async () => {
    const { analysis, severity } = await getJson(t, x.token, url());
    assert.equal(severity, 'critical', 'a credential read and an outbound connection: the kill chain');
    const techniques = analysis[0].mitreAttackTechniques.map((tech: { id: string }) => tech.id);
    assert.ok(techniques.includes('T1003.008'), techniques.join());
    assert.ok(analysis[0].mitreAttackTactics.some((tactic: { id: string }) => tactic.id === 'TA0006'));
  });

  test('children_limit keeps the drifted children first; most_recent_limit the drifted items', async () => {
    const full = await getJson(t, x.token, url());
    assert.equal(node(full.ongoing, 'server').children.length, 2);
    const cut = await getJson(t, x.token, url('?children_limit=1&most_recent_limit=1'));
    const root = node(cut.ongoing, 'server');
    assert.deepEqual(
      root.children.map((c) => [commOf(c), c.drift]),
      [['sh', true]],
    );
    assert.deepEqual(
      root.files.map((f) => f.path),
      ['/app/secrets.env'],
    );
    assert.deepEqual(
      root.connections.map((c) => c.address),
      ['203.0.113.5'],
    );
    assert.equal(node(cut.baseline, 'server').children.length, 1, 'both fingerprints are truncated');
    const none = await getJson(t, x.token, url('?children_limit=0'));
    assert.deepEqual(none.ongoing.containers[0].processes, []);
  });

  test('out-of-range limits are 400', async () => {
    for (const query of ['?children_limit=-1', '?most_recent_limit=1001', '?children_limit=x']) {
      const res = await t.request({ method: 'GET', url: url(query), token: x.token });
      assert.equal(res.status, 400, query);
    }
  });

  test('the list entry is the insight without its fingerprints', async () => {
    const { baseline, ongoing, ...detail } = await getJson(t, x.token, url());
    const list = await getJson(t, x.token, `/accounts/${x.accountId}/container_runtime_insights`);
    assert.deepEqual(list.entries[0], detail);
    assert.ok(baseline && ongoing);
  });

  test('an unknown or malformed insight id is 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${x.accountId}/container_runtime_insights/${id}`,
        token: x.token,
      });
      assert.equal(res.status, 404);
    }
  });
});
