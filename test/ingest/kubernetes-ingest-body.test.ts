/**
 * The ingestion body: formats, gzip and its bounds, validation errors that store nothing, query
 * parameters, and Idempotency-Key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { createCluster, type KubeJson, list, push, sampleItems, sampleObject, sampleText } from './sample.js';

let t: TestApp;
let tenant: TestTenant;
before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
after(() => t.close());

async function freshCluster() {
  return (
    await createCluster(t, tenant.adminToken, tenant.accountId, `c-${Math.random().toString(36).slice(2)}`)
  ).id;
}

async function storedCount(clusterId: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/resources?include_history=true&cluster_id=${clusterId}`,
    token: tenant.adminToken,
  });
  return res.body.total_count as number;
}

const pushTo = (clusterId: string, payload: string | Buffer | object, options = {}) =>
  push(t, tenant.adminToken, tenant.accountId, clusterId, payload, options);

describe('formats', () => {
  test('a typed PodList as the API server sends it, without kind on its items', async () => {
    const clusterId = await freshCluster();
    const items = sampleItems('03-pods.json').map(
      ({ kind: _kind, apiVersion: _apiVersion, ...rest }) => rest,
    );
    const res = await pushTo(clusterId, { apiVersion: 'v1', kind: 'PodList', metadata: {}, items });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.created, 26);
    assert.equal(await storedCount(clusterId), 26);
  });

  test('a single object, any content type', async () => {
    const clusterId = await freshCluster();
    const res = await pushTo(clusterId, JSON.stringify(sampleObject('Namespace', undefined, 'payments')), {
      headers: { 'content-type': 'text/plain' },
    });
    assert.deepEqual([res.status, res.body.format, res.body.created], [200, 'object', 1]);
  });

  test('gzip: announced with Content-Encoding, or recognised by its magic bytes', async () => {
    const clusterId = await freshCluster();
    const body = gzipSync(sampleText('04-rbac.json'));
    const announced = await pushTo(clusterId, body, { headers: { 'content-encoding': 'gzip' } });
    assert.deepEqual([announced.status, announced.body.created], [200, 81]);
    const detected = await pushTo(clusterId, body, {
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.deepEqual([detected.status, detected.body.unchanged], [200, 81]);
  });
});

describe('refused pushes store nothing', () => {
  test('one invalid item: 400 naming its position, kind and name', async () => {
    const clusterId = await freshCluster();
    const pods = sampleItems('03-pods.json');
    pods[3].metadata.uid = undefined;
    pods[7].spec.containers = 'nginx';
    const res = await pushTo(clusterId, list(pods));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(
      res.body.validation_details.map((d: KubeJson) => [d.field, d.code]),
      [
        ['items[3]', 'required'],
        ['items[7]', 'invalid_type'],
      ],
    );
    assert.match(
      res.body.validation_details[0].message,
      new RegExp(`^Pod ${pods[3].metadata.namespace}/${pods[3].metadata.name}: metadata.uid is required`),
    );
    assert.equal(await storedCount(clusterId), 0);
  });

  test('a bad NDJSON line is named by its number', async () => {
    const clusterId = await freshCluster();
    const pod = sampleObject('Pod', 'payments', 'debug-shell');
    const lines = [
      JSON.stringify({ type: 'ADDED', object: pod }),
      '',
      '{"type": "ADDED", "object": {"kind": }',
    ];
    const res = await pushTo(clusterId, lines.join('\n'));
    assert.equal(res.status, 400);
    assert.equal(res.body.validation_details[0].field, 'line 3');
    assert.equal(await storedCount(clusterId), 0);
  });

  test('many invalid items: the first 20 are detailed and the message counts them all', async () => {
    const clusterId = await freshCluster();
    const items = Array.from({ length: 30 }, () => ({ kind: 'Pod' }));
    const res = await pushTo(clusterId, list(items));
    assert.equal(res.body.validation_details.length, 20);
    assert.match(res.body.message, /^30 of 30 items are invalid; nothing was stored/);
  });

  test('not JSON, an empty body, broken gzip, an unknown encoding', async () => {
    const clusterId = await freshCluster();
    const cases: [string | Buffer, Record<string, string>, number, string][] = [
      ['kind: Pod\nmetadata: {}', {}, 400, 'line 1'],
      ['', {}, 400, 'body'],
      [Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01]), {}, 400, 'body'],
      ['{}', { 'content-encoding': 'br' }, 415, ''],
    ];
    for (const [payload, headers, status, field] of cases) {
      const res = await pushTo(clusterId, payload, { headers });
      assert.equal(res.status, status, res.text);
      if (field) assert.equal(res.body.validation_details[0].field, field);
    }
    assert.equal(await storedCount(clusterId), 0);
  });

  test('a body over 64 MiB, and a gzip body expanding beyond 256 MiB, are 413', async () => {
    const clusterId = await freshCluster();
    const big = await pushTo(clusterId, Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    assert.deepEqual([big.status, big.body.code], [413, 'payload_too_large']);
    const bomb = gzipSync(Buffer.alloc(257 * 1024 * 1024, 0x20), { level: 9 });
    assert.ok(bomb.length < 1024 * 1024);
    const res = await pushTo(clusterId, bomb, { headers: { 'content-encoding': 'gzip' } });
    assert.deepEqual([res.status, res.body.code], [413, 'payload_too_large']);
    assert.equal(await storedCount(clusterId), 0);
  });

  test('bad query parameters', async () => {
    const clusterId = await freshCluster();
    const body = sampleText('01-cluster.json');
    for (const [query, field] of [
      ['?mode=merge', 'mode'],
      ['?observed_at=yesterday', 'observed_at'],
      ['?observed_at=2999-01-01T00:00:00Z', 'observed_at'],
    ]) {
      const res = await pushTo(clusterId, body, { query });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.validation_details[0].field, field);
    }
    assert.equal(await storedCount(clusterId), 0);
  });
});

test('observed_at becomes watched_at; ingested_at is the time of the push', async () => {
  const clusterId = await freshCluster();
  const res = await pushTo(clusterId, sampleObject('Namespace', undefined, 'payments'), {
    query: '?observed_at=2026-01-02T03:04:05Z',
  });
  assert.equal(res.status, 200, res.text);
  const record = (
    await t.request({
      method: 'GET',
      url: `/clusters/${clusterId}/resources/${sampleObject('Namespace', undefined, 'payments').metadata.uid}/latest`,
      token: tenant.adminToken,
    })
  ).body;
  assert.equal(record.watched_at, '2026-01-02T03:04:05.000Z');
  assert.ok(Date.now() - Date.parse(record.ingested_at) < 60_000);
});

describe('Idempotency-Key', () => {
  const key = (name: string) => ({ 'idempotency-key': `${name}-${Math.random().toString(36).slice(2)}` });

  test('a retry replays the first answer and changes nothing', async () => {
    const clusterId = await freshCluster();
    const headers = key('snapshot');
    const pods = sampleText('03-pods.json');
    const first = await pushTo(clusterId, pods, { query: '?mode=snapshot', headers });
    assert.equal(first.status, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    // A pod created since: had the retry run for real, its snapshot would delete it.
    const newcomer = sampleObject('Pod', 'payments', 'debug-shell');
    newcomer.metadata.uid = '7e57e57e-0000-4000-8000-000000000001';
    newcomer.metadata.name = 'newcomer';
    assert.equal((await pushTo(clusterId, newcomer)).status, 200);

    const retry = await pushTo(clusterId, pods, { query: '?mode=snapshot', headers });
    assert.equal(retry.status, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, first.body);
    const record = await t.request({
      method: 'GET',
      url: `/clusters/${clusterId}/resources/${newcomer.metadata.uid}/latest`,
      token: tenant.adminToken,
    });
    assert.equal(record.body.deleted_at, null);
  });

  test('the same key with another request is 409; the key is per account', async () => {
    const clusterId = await freshCluster();
    const headers = key('conflict');
    assert.equal((await pushTo(clusterId, sampleText('01-cluster.json'), { headers })).status, 200);
    for (const [body, query] of [
      [sampleText('04-rbac.json'), ''],
      [sampleText('01-cluster.json'), '?mode=snapshot'],
    ] as const) {
      const res = await pushTo(clusterId, body, { headers, query });
      assert.deepEqual([res.status, res.body.code], [409, 'conflict']);
    }
    const other = await createTenant(t);
    const otherCluster = await createCluster(t, other.adminToken, other.accountId);
    const elsewhere = await push(
      t,
      other.adminToken,
      other.accountId,
      otherCluster.id,
      sampleText('04-rbac.json'),
      {
        headers,
      },
    );
    assert.deepEqual([elsewhere.status, elsewhere.body.created], [200, 81]);
  });

  test('a refused push does not use up its key; malformed keys are 400', async () => {
    const clusterId = await freshCluster();
    const headers = key('retry');
    const refused = await pushTo(clusterId, list([{ kind: 'Pod' }]), { headers });
    assert.equal(refused.status, 400);
    const accepted = await pushTo(clusterId, sampleText('01-cluster.json'), { headers });
    assert.deepEqual([accepted.status, accepted.body.created], [200, 10]);
    for (const bad of ['has space', 'x'.repeat(256)]) {
      const res = await pushTo(clusterId, sampleText('01-cluster.json'), {
        headers: { 'idempotency-key': bad },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.validation_details[0].param, 'header');
    }
  });
});
