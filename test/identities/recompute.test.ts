/**
 * Identities follow the Kubernetes ingestion: computed in the push's transaction, stable across
 * re-ingestion, resolved (never forgotten) when bindings, roles or accounts go away.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RISK_RULES } from '../../src/engines/rbac/index.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  allIdentities,
  bumped,
  clusterRole,
  clusterRoleBinding,
  deleted,
  identityNamed,
  listIdentities,
  pushObjects,
  pushSampleWithRbac,
  pushWatchEvents,
  role,
  roleBinding,
  runningPod,
  serviceAccount,
} from './support.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const getIdentity = async (tenant: TestTenant, id: string) => {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/identities/${id}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

/** A service account reading secrets of its namespace through a Role, used by a running pod. */
function secretReader(namespace = 'shop') {
  const account = serviceAccount(namespace, 'api');
  const reader = role(namespace, 'secret-reader', [{ resources: ['secrets'], verbs: ['get', 'list'] }]);
  const binding = roleBinding(namespace, 'api-secrets', { kind: 'Role', name: 'secret-reader' }, [
    { kind: 'ServiceAccount', name: 'api', namespace },
  ]);
  return { account, reader, binding, pod: runningPod(namespace, 'api-1', 'api') };
}

describe('identities from the sample cluster', () => {
  test('every risk rule fires at least once, some identities have none, every level occurs', async () => {
    const tenant = await createTenant(t);
    const cluster = await pushSampleWithRbac(t, tenant);
    const identities = await allIdentities(t, tenant);
    assert.ok(identities.length > 30);
    assert.ok(
      identities.every(
        (identity) => identity.source_id === cluster.id && identity.source_name === cluster.name,
      ),
    );
    const types = new Set(identities.flatMap((identity) => identity.risk_types));
    assert.deepEqual([...types].sort(), RISK_RULES.map((rule) => rule.type).sort());
    assert.ok(identities.some((identity) => identity.risks.length === 0 && identity.status === 'resolved'));
    assert.deepEqual([...new Set(identities.map((identity) => identity.risk_level))].sort(), [
      'Critical',
      'High',
      'Low',
      'Medium',
      'Negligible',
      'Unspecified',
    ]);
    // System identities are identities too.
    assert.ok(
      identities.some((identity) => identity.namespace === 'kube-system' && identity.risks.length > 0),
    );
    const ledger = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'ledger');
    assert.deepEqual([ledger.risk_level, ledger.risk_types], ['Low', ['secrets_read']]);
    assert.deepEqual(
      ledger.raw_rbac_objects.roles
        .map((object: { metadata: { name: string } }) => object.metadata.name)
        .sort(),
      ['ledger-tls-reader', 'pod-lister'],
    );
  });
});

describe('lifecycle across ingestions', () => {
  test('fingerprints, ids and first detections are stable across re-ingestion; unchanged rows keep updated_at', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
    const { account, reader, binding, pod } = secretReader();
    await pushObjects(t, tenant, cluster.id, [account, reader, binding, pod]);
    const first = await identityNamed(t, tenant, 'k8s_service_account', 'shop', 'api');
    assert.equal(first.risks.length, 1);

    // An unrelated change triggers a recompute; the binding deleted and recreated under its name
    // (new uid) keeps the fingerprint too.
    const recreated = bumped(binding, (copy) => {
      copy.metadata.uid = crypto.randomUUID();
    });
    await pushWatchEvents(t, tenant, cluster.id, [
      JSON.stringify({ type: 'MODIFIED', object: bumped(account) }),
      deleted(binding),
      JSON.stringify({ type: 'ADDED', object: recreated }),
    ]);
    const second = await identityNamed(t, tenant, 'k8s_service_account', 'shop', 'api');
    assert.equal(second.id, first.id);
    assert.deepEqual(
      second.risks.map((risk: { id: string; fingerprint: string; first_detected_at: string }) => [
        risk.id,
        risk.fingerprint,
        risk.first_detected_at,
      ]),
      first.risks.map((risk: { id: string; fingerprint: string; first_detected_at: string }) => [
        risk.id,
        risk.fingerprint,
        risk.first_detected_at,
      ]),
    );
    assert.ok(second.risks[0].last_detected_at > first.risks[0].last_detected_at);
    assert.equal(second.created_at, first.created_at);

    // The same objects in another cluster of the account are other identities.
    const other = await createCluster(t, tenant.adminToken, tenant.accountId, 'staging');
    await pushObjects(
      t,
      tenant,
      other.id,
      [account, reader, binding, pod].map((o) => bumped(o)),
    );
    const copy = await identityNamed(t, tenant, 'k8s_service_account', 'shop', 'api', other.id);
    assert.notEqual(copy.id, first.id);
    assert.notEqual(copy.risks[0].fingerprint, first.risks[0].fingerprint);
  });

  test('a DELETED binding resolves its risk and, with none left, the identity', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
    const { account, reader, binding, pod } = secretReader();
    await pushObjects(t, tenant, cluster.id, [account, reader, binding, pod]);
    const before = await identityNamed(t, tenant, 'k8s_service_account', 'shop', 'api');
    assert.deepEqual([before.status, before.resolved_at, before.resolved_reason], ['open', null, null]);

    await pushWatchEvents(t, tenant, cluster.id, [deleted(binding)]);
    const after = await getIdentity(tenant, before.id);
    assert.deepEqual(
      [after.status, after.resolved_reason, after.risk_score, after.risk_level],
      ['resolved', 'risks_resolved', 0, 'Unspecified'],
    );
    assert.ok(after.resolved_at >= before.updated_at);
    assert.deepEqual(after.risk_types, []);
    assert.equal(after.deleted_at, null, 'the service account itself still exists');
    // Resolved, not forgotten: the risk stays, with deleted_at.
    assert.equal(after.risks.length, 1);
    assert.equal(after.risks[0].fingerprint, before.risks[0].fingerprint);
    assert.equal(after.risks[0].deleted_at, after.resolved_at);
    assert.deepEqual(after.rbac_objects.assigned_roles, []);

    const open = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/identities?statuses=open&q=api`,
      token: tenant.adminToken,
    });
    assert.equal(open.body.total_count, 0);
  });

  test('snapshot absence of a role resolves the risk; the binding coming back reopens it', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
    const { account, reader, binding, pod } = secretReader();
    await pushObjects(t, tenant, cluster.id, [account, reader, binding, pod]);
    const before = await identityNamed(t, tenant, 'k8s_service_account', 'shop', 'api');

    // A snapshot of Roles that no longer holds secret-reader (kind Role pushed, the role absent).
    await pushObjects(
      t,
      tenant,
      cluster.id,
      [role('shop', 'unrelated', [{ resources: ['pods'], verbs: ['get'] }])],
      '?mode=snapshot',
    );
    const resolved = await getIdentity(tenant, before.id);
    assert.deepEqual([resolved.status, resolved.resolved_reason], ['resolved', 'risks_resolved']);
    assert.notEqual(resolved.risks[0].deleted_at, null);

    await pushObjects(t, tenant, cluster.id, [bumped(reader)]);
    const reopened = await getIdentity(tenant, before.id);
    assert.deepEqual([reopened.status, reopened.resolved_at, reopened.resolved_reason], ['open', null, null]);
    assert.equal(reopened.risks[0].deleted_at, null);
    assert.equal(reopened.risks[0].first_detected_at, before.risks[0].first_detected_at);
  });

  test('a deleted service account nothing refers to is resolved as identity_deleted', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
    const lonely = serviceAccount('shop', 'lonely');
    await pushObjects(t, tenant, cluster.id, [lonely]);
    const before = await identityNamed(t, tenant, 'k8s_service_account', 'shop', 'lonely');
    assert.deepEqual(
      [before.status, before.risk_types, before.last_used_at],
      ['open', ['unused_identity'], null],
    );

    await pushWatchEvents(t, tenant, cluster.id, [deleted(lonely)]);
    const after = await getIdentity(tenant, before.id);
    assert.deepEqual([after.status, after.resolved_reason], ['resolved', 'identity_deleted']);
    assert.notEqual(after.deleted_at, null);
    assert.equal(after.resolved_at, after.deleted_at);
    assert.notEqual(after.risks[0].deleted_at, null);
    const report = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/identities/reports/latest`,
      token: tenant.adminToken,
    });
    assert.equal(report.body.identities_count, 0, 'deleted identities are history, not posture');
  });

  test('aggregated ClusterRoles: a component label removed takes its rules away at the next push', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
    const component = clusterRole('secrets-part', [{ resources: ['secrets'], verbs: ['list'] }], {
      labels: { 'example.com/aggregate-to-ops': 'true' },
    });
    const aggregate = clusterRole('ops', [], { aggregate: { 'example.com/aggregate-to-ops': 'true' } });
    await pushObjects(t, tenant, cluster.id, [
      component,
      aggregate,
      clusterRoleBinding('ops', 'ops', [{ kind: 'User', name: 'erin@example.com' }]),
    ]);
    const erin = await identityNamed(t, tenant, 'k8s_user', '', 'erin@example.com');
    assert.deepEqual(erin.risk_types, ['secrets_read']);
    assert.ok(
      erin.risks[0].associated_resources.some((r: { name: string }) => r.name === 'ClusterRole/secrets-part'),
    );

    await pushObjects(t, tenant, cluster.id, [bumped(component, (copy) => delete copy.metadata.labels)]);
    const after = await getIdentity(tenant, erin.id);
    assert.deepEqual([after.status, after.risk_types], ['resolved', []]);
  });

  test('a push of kinds identities do not derive from changes no identity', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
    const { account, reader, binding, pod } = secretReader();
    await pushObjects(t, tenant, cluster.id, [account, reader, binding, pod]);
    const before = await identityNamed(t, tenant, 'k8s_service_account', 'shop', 'api');
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: serviceAccount('shop', 'cm').metadata,
      data: {},
    };
    await pushObjects(t, tenant, cluster.id, [configMap]);
    const after = await getIdentity(tenant, before.id);
    assert.equal(after.risks[0].last_detected_at, before.risks[0].last_detected_at);
    assert.equal(after.last_used_at, before.last_used_at);
  });

  // A whole-cluster recompute plans and writes its identities a few hundred at a time: this one
  // spans several parts, both for the identities it computes and for those it resolves.
  test('a cluster of more identities than one written part: every one is written, every vanished one resolved', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'fleet');
    const accounts = Array.from({ length: 1100 }, (_, i) => serviceAccount('fleet', `worker-${i}`));
    await pushObjects(t, tenant, cluster.id, accounts);
    const open = async () => (await listIdentities(t, tenant, '?statuses=open&page_size=1')).body.total_count;
    assert.equal(await open(), 1100);

    // A snapshot of ServiceAccounts keeping 400: 700 identities vanish, most of the cluster.
    await pushObjects(
      t,
      tenant,
      cluster.id,
      accounts.slice(0, 400).map((account) => bumped(account)),
      '?mode=snapshot',
    );
    assert.equal(await open(), 400);
    const kept = await allIdentities(t, tenant, '&statuses=open');
    assert.deepEqual(
      kept.map((identity) => identity.name).sort(),
      accounts
        .slice(0, 400)
        .map((account) => account.metadata.name)
        .sort(),
    );
    const resolved = await allIdentities(t, tenant, '&statuses=resolved');
    assert.equal(resolved.length, 700);
    assert.ok(resolved.every((identity) => identity.resolved_reason === 'identity_deleted'));
    assert.ok(
      resolved.every((identity) =>
        identity.risks.every((risk: { deleted_at: string | null }) => risk.deleted_at !== null),
      ),
    );
    const report = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/identities/reports/latest`,
      token: tenant.adminToken,
    });
    assert.equal(report.body.identities_count, 400);
  });
});
