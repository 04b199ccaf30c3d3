/**
 * The lists whose entries PostgreSQL writes as JSON text (src/db/entry-json.ts) answer the bytes
 * the route's serializer would write for the same values: each body is re-serialized through the
 * list's response schema with fast-json-stringify (what Fastify compiles from it) and must come
 * out unchanged; like every response through the harness, it must also hold to /openapi.json.
 * The demo tenant gives every kind of row; a pod whose container name needs JSON escapes (quotes,
 * backslashes, control characters, non-ASCII, a character outside the BMP) gives strings that do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fastJson from 'fast-json-stringify';
import type { TSchema } from 'typebox';
import { ContainerList } from '../../src/modules/inventory-containers/schemas.js';
import { ResourceList, ResourceRecordSchema } from '../../src/modules/resources/schemas.js';
import { HttpObservationList } from '../../src/modules/runtime/http-schemas.js';
import { PackageList } from '../../src/modules/vulnerabilities/package-schemas.js';
import { createCluster, list, push, sampleItems } from '../ingest/sample.js';
import { startDemoTenant } from '../support/demo.js';
import { startTestApp, type TestApp } from '../support/harness.js';

/** Needs every escape JSON has, and bytes of every UTF-8 length. */
const AWKWARD = 'quote " backslash \\ tab \t newline \n bell \u0007 del \u007f é 日本 😀 \u2028 /';

let t: TestApp;
let accountId: string;
let token: string;
let awkwardCluster: string;

before(async () => {
  t = await startTestApp();
  ({ accountId, token } = await startDemoTenant(t));
  const cluster = await createCluster(t, token, accountId, 'awkward');
  awkwardCluster = cluster.id;
  const pod = structuredClone(sampleItems('03-pods.json').find((p) => p.status.phase === 'Running'));
  pod.metadata.uid = 'awkward-pod';
  pod.metadata.name = 'awkward';
  pod.spec.containers[0].name = AWKWARD;
  pod.status.containerStatuses[0].name = AWKWARD;
  const pushed = await push(t, token, accountId, cluster.id, list([pod]));
  assert.equal(pushed.status, 200, pushed.text);
});
after(() => t.close());

/**
 * Each query's body, as sent, against what the route's serializer writes for its values. That the
 * body holds to the schema, the harness checks on every response (against /openapi.json).
 */
function assertSerializerBytes(schema: TSchema, bodies: { query: string; text: string }[]) {
  const serialize = fastJson(schema as object);
  for (const { query, text } of bodies) {
    assert.equal(serialize(JSON.parse(text)), text, `${query}: not the serializer's bytes`);
  }
}

async function bodiesOf(path: string, queries: string[]) {
  const bodies: { query: string; text: string }[] = [];
  for (const query of queries) {
    const url = path.startsWith('/') ? `${path}${query}` : `/accounts/${accountId}/${path}${query}`;
    const res = await t.request({ method: 'GET', url, token });
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    bodies.push({ query, text: res.text });
  }
  return bodies;
}

describe('entries written by PostgreSQL are the serializer bytes', () => {
  test('inventory containers: every page shape, the awkward name included', async () => {
    const bodies = await bodiesOf('inventory_containers', [
      '',
      '?limit=1000',
      '?limit=3&offset=2&sort=created_at:desc',
      '?filters=owner_kind:Deployment&sort=image_repo:asc',
      '?q=pay',
      '?q=zzz-no-match',
      '?offset=100000',
    ]);
    assertSerializerBytes(ContainerList, bodies);
    const all = JSON.parse(bodies[1]!.text);
    assert.ok(all.entries.length > 10);
    assert.ok(all.entries.some((entry: { name: string }) => entry.name === AWKWARD));
  });

  test('resources: live and history, every sort, with and without the payload; one record', async () => {
    const bodies = await bodiesOf('resources', [
      '',
      '?page_size=500',
      '?page_size=500&with_payload=true',
      '?include_history=true&sort=ingested_at:desc&page_size=200',
      '?resource_types=Pod&sort=namespace:desc',
      '?resource_types=Secret&with_payload=true',
      '?page=1000',
    ]);
    assertSerializerBytes(ResourceList, bodies);
    const pods = JSON.parse(bodies[2]!.text).entries;
    const awkward = pods.find((record: { uid: string }) => record.uid === 'awkward-pod');
    assert.ok(awkward, 'the awkward pod is listed');
    const raw = JSON.parse(Buffer.from(awkward.raw, 'base64').toString('utf8'));
    assert.equal(raw.spec.containers[0].name, AWKWARD, 'raw is the base64 of the stored JSON');
    const base = `/clusters/${awkwardCluster}/resources`;
    const single = await bodiesOf(base, [
      `/${awkward.id}`,
      `/${awkward.id}?with_payload=false`,
      '/awkward-pod/latest',
    ]);
    assertSerializerBytes(ResourceRecordSchema, single);
    assert.equal(JSON.parse(single[0]!.text).raw, awkward.raw);
  });

  test('inventory packages: filters, sorts, search', async () => {
    const bodies = await bodiesOf('inventory_packages', [
      '',
      '?limit=1000',
      '?filters=in_use:true&sort=critical_count:desc',
      '?filters=severity:high&sort=version:asc',
      '?q=ssl',
      '?offset=100000',
    ]);
    assertSerializerBytes(PackageList, bodies);
    assert.ok(JSON.parse(bodies[1]!.text).entries.length > 10);
  });

  test('HTTP request observations', async () => {
    const bodies = await bodiesOf('container_runtime_insights/http_requests', [
      '',
      '?limit=1000',
      '?filters=has_pii:true',
      '?q=api',
      '?offset=100000',
    ]);
    assertSerializerBytes(HttpObservationList, bodies);
    const all = JSON.parse(bodies[1]!.text).entries;
    assert.ok(all.length > 0);
    assert.ok(all.some((entry: { pii_labels: string[] }) => entry.pii_labels.length > 0));
  });
});
