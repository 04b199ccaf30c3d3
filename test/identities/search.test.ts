/**
 * `q` on the identities list (#14) is read through the trigram index of the identities' search
 * texts (migration 0060, docs/performance.md "Fix 61"). The oracle is the definition read directly
 * from the identities: a case-insensitive substring of the name or the namespace. The texts are
 * written by a trigger when an identity is, and backfilled by the migration for identities stored
 * before it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { identitySearchTexts } from '../../src/db/migrations/0060-identity-search-texts.js';
import { migrate } from '../../src/db/migrator.js';
import { containsPattern } from '../../src/http/search.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  allIdentities,
  identitiesMatching,
  listIdentities,
  pushObjects,
  serviceAccount,
  twoClustersWithHistory,
} from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const matching = (tenant: TestTenant, q: string, status?: string) => identitiesMatching(t, tenant, q, status);

async function searched(tenant: TestTenant, q: string) {
  const res = await listIdentities(t, tenant, `?page_size=1000&q=${encodeURIComponent(q)}`);
  assert.equal(res.status, 200, res.text);
  const ids = (res.body.entries as { id: string }[]).map((entry) => entry.id).sort();
  return { ids, total: res.body.total_count as number };
}

test('q finds the identities whose name or namespace contains it, in any case, and no others', async () => {
  const tenant = await createTenant(t);
  const { first } = await twoClustersWithHistory(t, tenant);
  await pushObjects(t, tenant, first.id, [
    serviceAccount('team-50%', 'Billing_Agent'),
    serviceAccount('ops', 'svc.reader'),
  ]);
  const phrases = [
    'shop', // a namespace
    'LONELY', // a name, resolved since, in another case
    'ontroller', // inside a word
    'kube-s', // a namespace across punctuation
    'SYSTEM:', // names, in another case
    'svc.r', // across punctuation
    'svcDr', // the letter a dot is stored as (0053), which must not match the dot
    '50%', // LIKE's own characters, matched literally
    'g_a',
    'erin@example', // a User's name
    'ng_ag',
    'p\u001fs', // the separator of the stored text's fields, searched field by field
    'op', // shorter than a trigram
    'no-such-identity',
  ];
  for (const q of phrases) {
    const expected = await matching(tenant, q);
    const found = await searched(tenant, q);
    assert.deepEqual(found.ids, expected, `q=${q}`);
    assert.equal(found.total, expected.length, `total of q=${q}`);
  }
  assert.ok((await matching(tenant, 'kube-s')).length > 5, 'a phrase with several matches');
  assert.equal((await matching(tenant, 'svcDr')).length, 0);
  assert.equal((await matching(tenant, 'LONELY')).length, 1);
});

test('a searched page past its matches is empty and still counts them; filters narrow the matches', async () => {
  const tenant = await createTenant(t);
  await twoClustersWithHistory(t, tenant);
  const res = await listIdentities(t, tenant, '?page=50&page_size=100&q=kube');
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.entries, []);
  const matches = (await matching(tenant, 'kube')).length;
  assert.ok(matches > 1 && matches < 4900, `${matches} matches`);
  assert.equal(res.body.total_count, matches);

  for (const status of ['open', 'resolved']) {
    const listed = await allIdentities(t, tenant, `&q=sho&statuses=${status}`);
    assert.deepEqual(
      listed.map((entry) => entry.id as string).sort(),
      await matching(tenant, 'sho', status),
      status,
    );
  }
  assert.equal((await matching(tenant, 'sho', 'resolved')).length, 1, 'the lonely one');
});

test("an identity's text is written with it, and the migration writes those of identities stored before it", async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'searched');
  await pushObjects(t, tenant, cluster.id, [serviceAccount('late', 'arrival')]);
  assert.equal((await searched(tenant, 'arriv')).total, 1, 'pushed after the migration');

  const texts = async () =>
    (
      await t.db.query<{ n: number; wrong: number }>(
        `select count(*)::int as n,
                count(*) filter (where s.search_text <> identity_search_text(i.name, i.namespace))::int as wrong
           from identities i join identity_search_texts s on s.account_id = i.account_id and s.identity_id = i.id
          where i.account_id = $1`,
        [tenant.accountId],
      )
    ).rows[0]!;
  const { rows } = await t.db.query<{ n: number }>(
    'select count(*)::int as n from identities where account_id = $1',
    [tenant.accountId],
  );
  assert.deepEqual(await texts(), { n: rows[0]!.n, wrong: 0 });

  // A database of the previous build: no texts. The migration runs again, as on an upgrade.
  await t.db.query('delete from identity_search_texts where account_id = $1', [tenant.accountId]);
  assert.equal((await searched(tenant, 'arriv')).total, 0);
  await t.db.query('delete from schema_migrations where id = $1', [identitySearchTexts.id]);
  assert.deepEqual(await migrate(t.db), [identitySearchTexts.id]);
  assert.deepEqual(await texts(), { n: rows[0]!.n, wrong: 0 });
  assert.equal((await searched(tenant, 'arriv')).total, 1);
});

test('the trigram index of the texts serves the search', async () => {
  const tenant = await createTenant(t);
  await twoClustersWithHistory(t, tenant);
  // The search's condition as the search function writes it, run as the owner. Without the
  // account's condition no other index serves it, and the sequential scan a table this small
  // would take is turned off: the plan is the trigram index's.
  const plan = await t.db.transaction(async (tx) => {
    await tx.query(`select set_config('enable_seqscan', 'off', true)`);
    const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
      `explain (costs off) select s.identity_id from identity_search_texts s
        where s.search_text like (select posture_search_words(lower($1 collate "default")))`,
      [containsPattern('lonely')],
    );
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
  assert.match(plan, /Bitmap Index Scan on identity_search_texts_search/, plan);
});
