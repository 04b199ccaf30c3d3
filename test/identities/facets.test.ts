/**
 * An identity's facet rows (the resources, verbs and open risk types #14 filters on) are what it
 * holds after every rewrite: a rewrite deletes the rows it no longer names, inserts the new ones,
 * and leaves the others as they were (docs/performance.md, "Fix 68"). The delta property test
 * compares a push's result with a full recompute run on the same rows, so a row left behind by
 * both would pass there; this test reads the rows themselves.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { bumped, identityNamed, pushObjects, role, roleBinding, serviceAccount } from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** The identity's facet rows as `facet=value`, each with the transaction that wrote it. */
async function facetRows(accountId: string, identityId: string): Promise<Map<string, string>> {
  const { rows } = await t.db.query<{ facet: string; value: string; xmin: string }>(
    `select facet, value, xmin::text as xmin from identity_facets
      where account_id = $1 and identity_id = $2`,
    [accountId, identityId],
  );
  return new Map(rows.map((row) => [`${row.facet}=${row.value}`, row.xmin]));
}

test('a rewritten identity loses the facets it no longer holds, gains new ones, keeps the rest untouched', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'facets');
  const reader = role('payments', 'reader', [
    { resources: ['secrets'], verbs: ['get', 'list'] },
    { resources: ['configmaps'], verbs: ['get'] },
  ]);
  await pushObjects(t, tenant, cluster.id, [
    serviceAccount('payments', 'api'),
    reader,
    roleBinding('payments', 'api-reads', { kind: 'Role', name: 'reader' }, [
      { kind: 'ServiceAccount', name: 'api', namespace: 'payments' },
    ]),
  ]);
  const api = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'api');
  const before = await facetRows(tenant.accountId, api.id);
  assert.ok(before.has('resource=secrets') && before.has('action=list'), [...before.keys()].join());
  assert.ok(before.has('resource=configmaps') && before.has('action=get'), [...before.keys()].join());

  // secrets and list go, pods come, configmaps and get stay
  await pushObjects(t, tenant, cluster.id, [
    bumped(reader, (copy) => {
      copy.rules = [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      ];
    }),
  ]);
  const rewritten = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'api');
  assert.notEqual(rewritten.updated_at, api.updated_at, 'the identity was rewritten');
  const after = await facetRows(tenant.accountId, api.id);
  const held = [
    ...rewritten.rbac_objects.permissions.flatMap((p: { resources: string[] }) =>
      p.resources.map((resource) => `resource=${resource}`),
    ),
    ...rewritten.actions.map((action: string) => `action=${action}`),
    ...rewritten.risk_types.map((type: string) => `risk=${type}`),
  ];
  assert.deepEqual([...after.keys()].sort(), [...new Set(held)].sort());
  assert.ok(!after.has('resource=secrets') && !after.has('action=list'));
  assert.ok(after.has('resource=pods'));
  for (const kept of ['resource=configmaps', 'action=get'])
    assert.equal(after.get(kept), before.get(kept), `${kept} left as it was`);
  assert.notEqual(after.get('resource=pods'), before.get('resource=configmaps'));

  const filtered = (query: string) =>
    t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/identities?${query}`,
      token: tenant.adminToken,
    });
  assert.equal((await filtered('resources=secrets')).body.total_count, 0);
  assert.equal((await filtered('resources=pods')).body.total_count, 1);
});
