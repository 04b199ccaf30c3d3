/**
 * The account the inventory containers' page and `q` tests read
 * (src/modules/inventory-containers/list-pages.test.ts and searched-pages.test.ts): rows written
 * straight to the table so that each test knows every field, with ties on every sort, a token in
 * each searched field, LIKE's own characters, `q`'s punctuation, and another account holding a
 * token too.
 *
 * @example
 *   let f: SearchedContainers;
 *   before(async () => { f = await searchedContainers(); });
 *   after(() => f.t.close());
 *   assert.deepEqual(await f.search('svc-12'), ['svc-12-a']);
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SEARCH_JOINER_LETTERS, SEARCH_JOINERS } from '../../src/db/migrations/0053-search-words.js';
import { createCluster, type KubeJson } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from './harness.js';

interface Container {
  name: string;
  image_repo: string;
  image_tag: string;
  owner_name: string;
  owner_namespace: string;
  pod_name: string;
  container_id: string;
  cluster_name: string;
  owner_kind: string;
  created_at: string;
}

/** The fields `q` searches, each holding one row's token. */
export const SEARCHED = [
  'name',
  'image_repo',
  'image_tag',
  'owner_name',
  'owner_namespace',
  'pod_name',
  'container_id',
  'cluster_name',
] as const;

/** How many rows the account holds: the ties, the tokens, the phrases, LIKE's characters, the joiners. */
export const ROW_COUNT = 13 + SEARCHED.length + 4 + 6 + 2 * SEARCH_JOINERS.length + 2;

/** Sorted by (key, id), both as bytes (the columns are collate "C"; ids are lowercase hex). */
export const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Neutral values: no field of one container contains another's, nor any phrase the tests search. */
function container(i: number, values: Partial<Container> = {}): Container {
  return {
    name: `n${i}`,
    image_repo: `registry.example/repo${i}`,
    image_tag: `v${i}`,
    owner_name: `owner${i}`,
    owner_namespace: `space${i}`,
    pod_name: `pod${i}`,
    container_id: `cid${i}`,
    cluster_name: 'prod',
    owner_kind: 'Deployment',
    created_at: '2026-01-01T00:00:00.000Z',
    ...values,
  };
}

async function insertContainers(t: TestApp, accountId: string, clusterId: string, rows: Container[]) {
  for (const row of rows) {
    await t.db.query(
      `insert into inventory_containers (account_id, id, cluster_id, cluster_name, pod_uid, pod_resource_id,
         pod_name, pod_namespace, name, container_id, container_runtime, image, image_repo, image_name,
         image_tag, image_digest, owner_uid, owner_kind, owner_name, owner_namespace,
         owner_resource_version, owner_id, created_at)
       values ($1, $2, $3, $4, $5, '', $6, 'ns', $7, $8, 'containerd', '', $9, 'img', $10, '', 'uid', $11,
               $12, $13, '1', '', $14)`,
      [
        accountId,
        randomUUID(),
        clusterId,
        row.cluster_name,
        randomUUID(),
        row.pod_name,
        row.name,
        row.container_id,
        row.image_repo,
        row.image_tag,
        row.owner_kind,
        row.owner_name,
        row.owner_namespace,
        row.created_at,
      ],
    );
  }
}

function measuredRows(): Container[] {
  const rows: Container[] = [];
  // 13 containers share a name, a kind and a start time: every page boundary falls in a tie
  for (let i = 0; i < 13; i++) {
    rows.push(container(100 + i, { name: 'dup', owner_kind: 'Job', created_at: '2026-02-02T00:00:00.000Z' }));
  }
  // one field each holds a token (in another case than the one searched)
  SEARCHED.forEach((field, i) => {
    rows.push(container(200 + i, { [field]: `pre-ZqTok${i}W-post` }));
  });
  rows.push(container(300, { name: 'left-alpha', image_repo: 'beta-right' }));
  rows.push(container(303, { name: 'Éclair', owner_namespace: 'crème' }));
  rows.push(container(301, { image_tag: 'gamma', owner_name: 'delta' }));
  rows.push(container(302, { pod_name: 'tail-eps', container_id: 'ilon-head' }));
  for (const [i, name] of [
    'fifty%off',
    'fiftyXoff',
    'snake_case',
    'snakeXcase',
    'back\\slash',
    'backXslash',
  ].entries()) {
    rows.push(container(400 + i, { name }));
  }
  // each punctuation mark a stored search text writes as a letter (migration 0053), and that letter
  for (const [i, joiner] of [...SEARCH_JOINERS].entries()) {
    rows.push(container(600 + i, { name: `jn${joiner}x9` }));
    rows.push(container(650 + i, { name: `jn${SEARCH_JOINER_LETTERS[i]!.toLowerCase()}x9` }));
  }
  // the words of `svc-12` apart, in two fields, and together
  rows.push(container(700, { name: 'svc-3', owner_namespace: 'team-12' }));
  rows.push(container(701, { name: 'svc-12-a' }));
  return rows;
}

export interface SearchedContainers {
  t: TestApp;
  tenant: TestTenant;
  /** another tenant, whose account holds a container with the first token */
  other: TestTenant;
  /** the measured account's cluster */
  prod: { id: string; name: string };
  /** GET the measured account's inventory_containers with `query`; asserts a 200 */
  list(query: string): Promise<KubeJson>;
  /** the names `q` finds, sorted */
  search(q: string): Promise<string[]>;
}

/** Starts a test app holding the account. */
export async function searchedContainers(): Promise<SearchedContainers> {
  const t = await startTestApp();
  const tenant = await createTenant(t);
  const other = await createTenant(t);
  const prod = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  await insertContainers(t, tenant.accountId, prod.id, measuredRows());
  // another account's container with a token: never in the measured account's answers
  const theirs = await createCluster(t, other.adminToken, other.accountId, 'theirs');
  await insertContainers(t, other.accountId, theirs.id, [container(500, { name: 'pre-ZqTok0W-post' })]);

  const list = async (query: string) => {
    const res = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/inventory_containers${query}`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const search = async (q: string) =>
    (await list(`?limit=1000&q=${encodeURIComponent(q)}`)).entries.map((c: KubeJson) => c.name).sort();
  return { t, tenant, other, prod, list, search };
}
