import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { captureCli } from './cli-store.js';

const SAMPLE = [
  'sample/cluster/01-cluster.json',
  'sample/cluster/02-workloads.json',
  'sample/cluster/03-pods.json',
];

let t: TestApp;
let url: string;
let tenant: TestTenant;
let clusterId: string;
const scratch = mkdtempSync(join(tmpdir(), 'posture-ingest-'));

before(async () => {
  t = await startTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  tenant = await createTenant(t);
  const created = await t.request({
    method: 'POST',
    url: `/accounts/${tenant.accountId}/clusters`,
    token: tenant.adminToken,
    body: { name: 'cli-ingest' },
  });
  assert.equal(created.status, 201, created.text);
  clusterId = created.body.id;
});
after(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await t.close();
});

const ingest = (...args: string[]) =>
  captureCli(
    [
      'ingest',
      '--url',
      url,
      '--key-id',
      tenant.admin.accessKeyId,
      '--account',
      tenant.accountId,
      '--cluster',
      clusterId,
      ...args,
    ],
    { POSTURE_SECRET_KEY: tenant.admin.secretKey },
  );

test('posture ingest pushes Kubernetes files to the server, and a rerun stores nothing twice', async () => {
  const first = await ingest('--json', ...SAMPLE);
  assert.equal(first.code, 0, first.stderr);
  const results = JSON.parse(first.stdout) as { kind: string; created: number; received: number }[];
  assert.equal(results.length, SAMPLE.length);
  assert.ok(results.every((r) => r.kind === 'kubernetes' && r.received > 0));
  assert.ok(results.some((r) => r.created > 0));

  const pods = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/resources?resource_types=Pod&cluster_id=${clusterId}`,
    token: tenant.adminToken,
  });
  assert.equal(pods.status, 200);
  assert.ok(pods.body.total_count > 0, 'the pods arrived');

  const again = await ingest('--json', ...SAMPLE);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout), results, 'the same content replays the first answers');
  const after = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/resources?resource_types=Pod&cluster_id=${clusterId}`,
    token: tenant.adminToken,
  });
  assert.equal(after.body.total_count, pods.body.total_count);
});

test('a file that is neither objects, a scan nor events is refused in one line before anything is sent', async () => {
  const file = join(scratch, 'notes.json');
  writeFileSync(file, JSON.stringify({ hello: 'world' }));
  const run = await ingest(file);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^posture: .*notes\.json: cannot tell what it holds/);
  assert.equal(run.stderr.trim().split('\n').length, 1);
});

test('a server refusal is one line with the status, the reason and the request id', async () => {
  const file = join(scratch, 'bad.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'no-uid' } }));
  const run = await ingest(file);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^posture: .*bad\.json: 400 validation_failed.*\(request [0-9a-f-]+\)/);
});

test('a wrong secret fails authentication in one line', async () => {
  const run = await captureCli(
    [
      'ingest',
      '--url',
      url,
      '--key-id',
      tenant.admin.accessKeyId,
      '--secret',
      'psk_wrong',
      '--account',
      tenant.accountId,
      '--cluster',
      clusterId,
      SAMPLE[0]!,
    ],
    {},
  );
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^posture: authentication failed: 401 invalid_credentials/);
});
