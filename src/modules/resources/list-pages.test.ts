/**
 * Resources pages read their keys from the live indexes first, then the records (migration 0015):
 * the pages must still be the one ordered list cut in pieces, whatever ties the sort meets, and
 * the same record id in two clusters keeps one order (cluster_id is the last tie-breaker).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster, type KubeJson } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
let tenant: TestTenant;
let clusters: string[];

interface Record {
  cluster: number;
  uid: string;
  name: string;
  namespace: string;
  createdAt: string | null;
  latest?: boolean;
}

async function insert(row: Record) {
  const clusterId = clusters[row.cluster];
  const latest = row.latest ?? true;
  await t.db.query(
    `insert into cluster_resources (account_id, cluster_id, id, uid, resource_version, kind, api_version, name,
       namespace, resource_created_at, ingested_at, watched_at, entity_type, is_latest, raw)
     values ($1, $2, $3, $4, $5, 'ConfigMap', 'v1', $6, $7, $8, now(), now(), 'configuration', $9, '{}')`,
    [
      tenant.accountId,
      clusterId,
      `${row.uid}_${latest ? 2 : 1}`,
      row.uid,
      latest ? '2' : '1',
      row.name,
      row.namespace,
      row.createdAt,
      latest,
    ],
  );
}

const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  clusters = [
    (await createCluster(t, tenant.adminToken, tenant.accountId, 'one')).id,
    (await createCluster(t, tenant.adminToken, tenant.accountId, 'two')).id,
  ];
  for (let i = 0; i < 17; i++) {
    // ties on every sort field; the same uid (so the same record id) in both clusters for some
    const uid = `uid-${i % 11}`;
    await insert({
      cluster: i < 11 ? 0 : 1,
      uid,
      name: (i % 11) % 3 === 0 ? 'same' : `name-${i % 11}`,
      namespace: i % 2 === 0 ? 'even' : 'odd',
      createdAt: i % 4 === 0 ? null : `2026-03-0${1 + (i % 2)}T00:00:00.000Z`,
    });
  }
  // an overwritten version: never on the live pages
  await insert({
    cluster: 0,
    uid: 'uid-old',
    name: 'same',
    namespace: 'even',
    createdAt: null,
    latest: false,
  });
});
after(() => t.close());

async function list(query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/resources${query}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** The documented order: the field, then name for namespace, then id, then cluster id. */
function expectedOrder(all: KubeJson[], field: string, direction: string): string[] {
  const key = (r: KubeJson): string[] =>
    field === 'namespace' ? [r.namespace, r.name, r.id, r.cluster_id] : [r[field], r.id, r.cluster_id];
  const compare = (a: KubeJson, b: KubeJson) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) {
      // resource_created_at: nulls come last ascending (first descending), as in PostgreSQL
      if (ka[i] === null || kb[i] === null) {
        if (ka[i] !== kb[i]) return ka[i] === null ? 1 : -1;
        continue;
      }
      const c = byBytes(ka[i] as string, kb[i] as string);
      if (c !== 0) return c;
    }
    return 0;
  };
  const sorted = [...all].sort(compare).map((r) => `${r.cluster_id}/${r.id}`);
  return direction === 'desc' ? sorted.reverse() : sorted;
}

describe('resources: pages from the keys', () => {
  test('pages of 3 are the one ordered list cut in pieces, for each sort, ties and twin ids included', async () => {
    const all = (await list('?page_size=1000')).entries;
    assert.equal(all.length, 17);
    assert.ok(all.filter((r: KubeJson) => r.id === 'uid-0_2').length === 2, 'one id in two clusters');
    for (const field of ['name', 'namespace', 'resource_created_at']) {
      for (const direction of ['asc', 'desc']) {
        const paged: string[] = [];
        for (let page = 1; page <= 7; page++) {
          const body = await list(`?page_size=3&page=${page}&sort=${field}:${direction}`);
          assert.equal(body.total_count, 17);
          assert.equal(body.page_count, 6);
          paged.push(...body.entries.map((r: KubeJson) => `${r.cluster_id}/${r.id}`));
        }
        assert.deepEqual(paged, expectedOrder(all, field, direction), `${field}:${direction}`);
      }
    }
  });

  test('with history, the overwritten version is paged too', async () => {
    const body = await list('?page_size=1000&include_history=true');
    assert.equal(body.total_count, 18);
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const part = await list(`?page_size=5&page=${page}&include_history=true`);
      paged.push(...part.entries.map((r: KubeJson) => `${r.cluster_id}/${r.id}`));
    }
    assert.deepEqual(paged, expectedOrder(body.entries, 'name', 'asc'));
  });
});
