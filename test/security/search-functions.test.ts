/**
 * The `q` searches that run as SECURITY DEFINER functions of the owner, so that row-level security
 * does not keep the planner from their trigram indexes (migrations 0015, 0042, 0044, 0051, 0053
 * and 0060): each applies the policies' rule itself. On PostgreSQL the application's role finds only
 * its scope's accounts; PGlite runs as its superuser, whom no policy binds, and finds every
 * account, as its tables do.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type DataScope, withScope } from '../../src/db/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

interface SearchFunction {
  name: string;
  /** returns its matches as one array (addresses, 0057; identity ids, 0060) rather than a set of rows */
  asArray?: true;
  /** inserts one row of the account whose searched text contains "Secret-Token" */
  insert: (database: TestDatabase, accountId: string) => Promise<unknown>;
}

const insertContainer = (database: TestDatabase, accountId: string) =>
  database.owner.query(
    `insert into inventory_containers (account_id, id, cluster_id, cluster_name, pod_uid, pod_resource_id,
           pod_name, pod_namespace, name, container_id, container_runtime, image, image_repo, image_name,
           image_tag, image_digest, owner_uid, owner_kind, owner_name, owner_namespace,
           owner_resource_version, owner_id, created_at)
         values ($1, $2, $3, 'c', 'p', '', 'p', 'ns', 'Secret-Token', 'x', 'containerd', '', 'r', 'i', 't', '',
                 'u', 'Pod', 'o', 'ns', '1', '', now())`,
    [accountId, randomUUID(), randomUUID()],
  );

const insertPackage = (database: TestDatabase, accountId: string) =>
  database.owner.query(
    `insert into vulnerability_packages (account_id, id, name, version) values ($1, $2, 'Secret-Token', '1.0')`,
    [accountId, randomUUID()],
  );

const insertIdentity = async (database: TestDatabase, accountId: string) => {
  const clusterId = randomUUID();
  await database.owner.query(`insert into clusters (account_id, id, name) values ($1, $2, $3)`, [
    accountId,
    clusterId,
    `c-${clusterId}`,
  ]);
  // the identity's text is written by the trigger on identities (0060)
  return database.owner.query(
    `insert into identities (account_id, id, tenant_id, cluster_id, source_name, source_type, original_id,
           name, namespace, type, status, created_at, updated_at, risk_score, risk_level, risk_types, actions,
           usage, is_system, linked_resources, rightsizeable, risk_detectors, risks_summary, rbac_objects,
           raw_record_ids, content_hash)
         select $1, $2, a.tenant_id, $3, 'c', 'Kubernetes', 'uid', 'Secret-Token', 'ns', 'ServiceAccount', 'open',
                now(), now(), 0, 'None', '{}', '{}', 'unused', false, 0, false, '{}', '{}', '{}', '{}', ''
           from accounts a where a.id = $1`,
    [accountId, randomUUID(), clusterId],
  );
};

// Each table's ids function, the same search returning the rows whole for a page (0044), the
// containers' returning the columns a page filters and sorts by (0051), and each table's returning
// the matches' addresses (0057); the identities' and the containers' ids functions (0060, 0061),
// which their lists read now.
const SEARCH_FUNCTIONS: SearchFunction[] = [
  { name: 'inventory_containers_matching', insert: insertContainer },
  { name: 'inventory_containers_search', insert: insertContainer },
  { name: 'inventory_containers_search_keys', insert: insertContainer },
  { name: 'inventory_containers_search_tids', asArray: true, insert: insertContainer },
  { name: 'vulnerability_packages_matching', insert: insertPackage },
  { name: 'vulnerability_packages_search', insert: insertPackage },
  { name: 'vulnerability_packages_search_tids', asArray: true, insert: insertPackage },
  { name: 'identity_search_ids', asArray: true, insert: insertIdentity },
  { name: 'inventory_container_search_ids', asArray: true, insert: insertContainer },
];

let database: TestDatabase;
let tenantId: string;
let mine: string;
let theirs: string;

before(async () => {
  database = await createTestDatabase();
  tenantId = randomUUID();
  [mine, theirs] = [randomUUID(), randomUUID()];
  await database.owner.query('insert into tenants (id, name) values ($1, $2)', [tenantId, 't']);
  await database.owner.query(
    `insert into accounts (id, tenant_id, name) values ($1, $3, 'mine'), ($2, $3, 'theirs')`,
    [mine, theirs, tenantId],
  );
  // One row per table and account: several functions search each table.
  for (const insert of new Set(SEARCH_FUNCTIONS.map((search) => search.insert))) {
    for (const accountId of [mine, theirs]) await insert(database, accountId);
  }
});
after(() => database.close());

for (const search of SEARCH_FUNCTIONS) {
  describe(`${search.name}(): the row-level security rule, applied by the function`, () => {
    test("the application's role finds only its scope's accounts; PGlite's superuser, every account", async () => {
      const found = async (scope: DataScope | undefined, accountId: string) => {
        const call = `${search.name}($1, $2)`;
        const ask = () =>
          database.db.query(`select ${search.asArray ? `unnest(${call})` : call} as found`, [
            accountId,
            '%secret-tok%',
          ]);
        return (await (scope ? withScope(scope, ask) : ask())).rows.length;
      };
      const scope: DataScope = { kind: 'tenant', tenantId, accountIds: [mine] };
      const bound = database.db.engine === 'postgres';
      assert.equal(await found(scope, mine), 1, 'case folded, in the scope');
      assert.equal(await found(scope, theirs), bound ? 0 : 1, 'another account of the tenant');
      assert.equal(
        await found({ kind: 'tenant', tenantId: randomUUID(), accountIds: 'all' }, mine),
        bound ? 0 : 1,
        'another tenant',
      );
      assert.equal(await found(undefined, mine), bound ? 0 : 1, 'no scope: nothing');
      assert.equal(await found({ kind: 'system' }, theirs), 1);
    });
  });
}

/**
 * A new account of the tenant with `count` containers named `<prefix>-1` to `<prefix>-<count>`,
 * every other searched field distinct per row and never holding the prefix.
 */
async function accountWithContainers(prefix: string, count: number): Promise<string> {
  const accountId = randomUUID();
  await database.owner.query(`insert into accounts (id, tenant_id, name) values ($1, $2, $3)`, [
    accountId,
    tenantId,
    prefix,
  ]);
  await database.owner.query(
    `insert into inventory_containers (account_id, id, cluster_id, cluster_name, pod_uid, pod_resource_id,
           pod_name, pod_namespace, name, container_id, container_runtime, image, image_repo, image_name,
           image_tag, image_digest, owner_uid, owner_kind, owner_name, owner_namespace,
           owner_resource_version, owner_id, created_at)
     select $1, gen_random_uuid(), $2, 'cluster-' || md5(i::text), gen_random_uuid()::text, '',
            'pod-' || md5(i::text), 'ns', $3::text || '-' || i, md5(i::text) || md5((i + 1)::text), 'containerd', '',
            'registry.example/' || md5(i::text), 'image-' || md5(i::text), 'v' || i,
            'sha256:' || md5(i::text) || md5((i + 2)::text), gen_random_uuid()::text, 'ReplicaSet',
            'owner-' || md5(i::text), 'ns', '1', '', now()
       from generate_series(1, $4::int) i`,
    [accountId, randomUUID(), prefix, count],
  );
  return accountId;
}

describe('a search hands its rows over in memory (migration 0053)', () => {
  test('10,000 matches of a containers search write no temporary file', async () => {
    // Past PostgreSQL's default work_mem (4 MB), which spilled them, and within the functions' 16 MB.
    const crowded = await accountWithContainers('crowd', 10000);
    for (const name of ['inventory_containers_search_keys', 'inventory_containers_search']) {
      const { rows } = await database.owner.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers, costs off, timing off, summary off)
         select count(*) from ${name}($1, '%crowd-%')`,
        [crowded],
      );
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      assert.match(plan, /Function Scan .*rows=10000(\.00)? loops=1/, plan);
      assert.doesNotMatch(plan, /temp (read|written)/, plan);
    }
  });
});

describe("a list reads the search's matches by address, under the policies (migration 0057)", () => {
  test('a TID scan of the matches alone, and no match of an account outside the scope', async () => {
    const addressed = await accountWithContainers('addressed', 2000);
    await database.owner.query('analyze inventory_containers');
    // The clause search.ts adds for `q` (path 'function'), as a list's count would run it.
    const counted = `from inventory_containers c where c.account_id = $1
        and c.ctid = any((select inventory_containers_search_tids($1, '%addressed-1%'))::tid[])`;
    const inScope = <T>(work: () => Promise<T>) =>
      withScope({ kind: 'tenant', tenantId, accountIds: [addressed] }, work);
    // addressed-1, -10 to -19, -100 to -199, -1000 to -1999
    const { rows } = await inScope(() =>
      database.db.query<{ n: number }>(`select count(*)::int as n ${counted}`, [addressed]),
    );
    assert.equal(rows[0]?.n, 1111);
    const plan = await inScope(async () => {
      const explained = await database.db.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, costs off, timing off, summary off) select count(*) ${counted}`,
        [addressed],
      );
      return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /Tid Scan on inventory_containers c \(actual rows=1111(\.00)? loops=1\)/, plan);
    if (database.db.engine === 'postgres') {
      const outside = await withScope({ kind: 'tenant', tenantId, accountIds: [mine] }, () =>
        database.db.query<{ n: number }>(`select count(*)::int as n ${counted}`, [addressed]),
      );
      assert.equal(outside.rows[0]?.n, 0, 'an account outside the scope');
    }
  });
});

describe("a containers list reads the search's matches in name order, under the policies (migration 0061)", () => {
  // That the texts' trigram index serves the search: src/modules/inventory-containers/list-pages.test.ts.
  test('the matches in name order; no match of an account outside the scope', async () => {
    const named = await accountWithContainers('named', 2000);
    const ids = `(select inventory_container_search_ids($1, '%named-1%'))::uuid[]`;
    const inScope = <T>(work: () => Promise<T>) =>
      withScope({ kind: 'tenant', tenantId, accountIds: [named] }, work);
    // named-1, -10 to -19, -100 to -199, -1000 to -1999, in the order of their names
    const { rows } = await inScope(() =>
      database.db.query<{ name: string }>(
        `select c.name from unnest(${ids}) with ordinality as m (id, n)
           join inventory_containers c on c.account_id = $1 and c.id = m.id order by m.n`,
        [named],
      ),
    );
    const names = rows.map((row) => row.name);
    assert.equal(names.length, 1111);
    assert.deepEqual(names, [...names].sort());
    if (database.db.engine === 'postgres') {
      const outside = await withScope({ kind: 'tenant', tenantId, accountIds: [mine] }, () =>
        database.db.query<{ n: number }>(`select cardinality(${ids}) as n`, [named]),
      );
      assert.equal(outside.rows[0]?.n, 0, 'an account outside the scope');
    }
  });
});
