/**
 * The group lifecycle through real HTTP ingestion: a privileged Deployment opens a group, the
 * fixed version closes it, the bad version again reopens it (same fingerprint, same group), and
 * an ignored group stays ignored whatever the findings do.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCluster, push } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { scopeOfActor, withScope, withSystemScope } from '../../db/scope.js';
import { createKubernetesIngestService } from '../clusters/ingest-service.js';
import { createFindingsEvaluator } from './evaluator.js';
import type { FindingGroupsOpened } from './events.js';
import { deployment, pod, replicaSet } from './test-objects.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function pushOk(tenant: TestTenant, clusterId: string, payload: object | string) {
  const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, payload);
  assert.equal(res.status, 200, res.text);
}

async function groups(tenant: TestTenant, query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups?${query}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body as {
    id: string;
    status: string;
    first_seen: string;
    last_seen: string;
    source_kind: string;
  }[];
}

async function group(tenant: TestTenant, id: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/unified_findings/groups/${id}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

test('open on a privileged Deployment, closed when fixed, reopened when it returns, ignored stays ignored', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'lifecycle');

  await pushOk(tenant, cluster.id, deployment({ version: '1', privileged: true }));
  const [opened, ...more] = await groups(tenant, 'filters=rule_id:K8S-001');
  assert.ok(opened);
  assert.deepEqual(more, []);
  assert.equal(opened.status, 'open');
  const first = await group(tenant, opened.id);
  assert.equal(first.source_kind, 'Deployment');
  assert.equal(first.source_name, 'web');
  assert.equal(first.source_namespace, 'shop');
  assert.equal(first.type, 'k8s_misconfiguration');
  assert.equal(first.severity, 'critical');
  assert.equal(first.findings.length, 1);
  const finding = first.findings[0];
  assert.equal(finding.deleted_at, null);
  assert.equal(finding.severity_int, 5);
  assert.deepEqual(finding.messages, ['container "app" runs privileged']);

  // The fixed version: the finding stops holding and the group closes.
  await pushOk(tenant, cluster.id, deployment({ version: '2', privileged: false }));
  const closed = await group(tenant, opened.id);
  assert.equal(closed.status, 'closed');
  assert.equal(closed.status_changed_by, null, 'closed by the evaluation');
  assert.equal(closed.findings[0].id, finding.id);
  assert.notEqual(closed.findings[0].deleted_at, null);

  // Bad again: the same finding (same fingerprint) revives and the group reopens.
  await pushOk(tenant, cluster.id, deployment({ version: '3', privileged: true }));
  const reopened = await group(tenant, opened.id);
  assert.equal(reopened.status, 'open');
  assert.equal(reopened.first_seen, first.first_seen, 'first_seen is kept');
  assert.ok(reopened.last_seen > first.last_seen);
  assert.deepEqual(
    reopened.findings.map((f: { id: string; fingerprint: string; deleted_at: string | null }) => [
      f.id,
      f.fingerprint,
      f.deleted_at,
    ]),
    [[finding.id, finding.fingerprint, null]],
  );
  assert.deepEqual(
    (await groups(tenant, 'filters=rule_id:K8S-001')).map((g) => [g.id, g.status]),
    [[opened.id, 'open']],
    'the same group, not a new one',
  );

  // Ignored: neither the fix nor the return changes the status.
  const ignored = await t.request({
    method: 'PUT',
    url: `/accounts/${tenant.accountId}/unified_findings/groups/${opened.id}/status`,
    token: tenant.adminToken,
    body: { status: 'ignored' },
  });
  assert.equal(ignored.status, 200, ignored.text);
  assert.equal(ignored.body.status, 'ignored');
  assert.equal(ignored.body.status_changed_by, tenant.admin.userId);
  await pushOk(tenant, cluster.id, deployment({ version: '4', privileged: false }));
  assert.equal((await group(tenant, opened.id)).status, 'ignored', 'not closed by a fix');
  await pushOk(tenant, cluster.id, deployment({ version: '5', privileged: true }));
  const stillIgnored = await group(tenant, opened.id);
  assert.equal(stillIgnored.status, 'ignored', 'not reopened by a returning finding');
  assert.equal(stillIgnored.findings[0].deleted_at, null, 'the finding itself holds again');
  assert.equal(stillIgnored.status_changed_by, tenant.admin.userId);
});

test('a deleted workload closes its groups', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'deleted');
  await pushOk(tenant, cluster.id, deployment({ version: '1', privileged: true }));
  const before = await groups(tenant, 'filters=status:open');
  assert.ok(before.length > 1, 'the sample Deployment breaks several rules');
  await pushOk(
    tenant,
    cluster.id,
    JSON.stringify({ type: 'DELETED', object: deployment({ version: '2', privileged: true }) }),
  );
  assert.deepEqual(await groups(tenant, 'filters=status:open'), []);
  assert.equal((await groups(tenant, 'filters=status:closed')).length, before.length);
});

test('pods and ReplicaSets of a Deployment are attributed to it, not reported again', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'attribution');
  const owner = deployment({ version: '1', privileged: true });
  const rs = replicaSet(owner);
  await pushOk(tenant, cluster.id, {
    apiVersion: 'v1',
    kind: 'List',
    items: [owner, rs, pod(rs, 'web-1'), pod(rs, 'web-2')],
  });
  const kinds = new Set((await groups(tenant, '')).map((g) => g.source_kind));
  assert.deepEqual([...kinds], ['Deployment']);
  // An unowned pod is judged itself.
  await pushOk(tenant, cluster.id, pod(null, 'debug'));
  assert.ok((await groups(tenant, 'filters=source_kind:Pod')).length > 0);
});

test('listeners get the groups created or reopened, inside the push transaction', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'notified');
  const events: FindingGroupsOpened[] = [];
  const evaluator = createFindingsEvaluator({
    listeners: [
      async (tx, event) => {
        // The groups are visible to the listener's own statements (same transaction).
        const { rows } = await tx.query<{ n: number }>(
          'select count(*)::int as n from finding_groups where account_id = $1 and id = any($2::uuid[])',
          [event.accountId, event.groups.map((g) => g.id)],
        );
        assert.equal(rows[0]?.n, event.groups.length);
        events.push(event);
      },
    ],
  });
  const service = createKubernetesIngestService({
    db: t.db,
    clusters: t.app.services.clusters,
    clusterListeners: [evaluator.onClusterPush],
    listeners: [evaluator.onKubernetesPush],
  });
  // As a request would: the session in the system scope, the push in the caller's (src/db/scope.ts).
  const actor = await withSystemScope(() => t.app.services.auth.actorForToken(tenant.adminToken));
  const ingest = (object: object) =>
    withScope(scopeOfActor(actor), () =>
      service.ingest(actor, {
        accountId: tenant.accountId,
        clusterId: cluster.id,
        mode: 'incremental',
        body: Buffer.from(JSON.stringify(object)),
      }),
    );

  await ingest(deployment({ version: '1', privileged: true }));
  const created = events.at(-1);
  assert.ok(created);
  assert.equal(created.tenantId, tenant.tenantId);
  assert.ok(created.groups.some((g) => g.rule_id === 'K8S-001' && g.status === 'open'));
  const count = events.length;

  await ingest(deployment({ version: '2', privileged: false }));
  assert.equal(events.length, count, 'closing notifies nobody');
  await ingest(deployment({ version: '3', privileged: true }));
  assert.deepEqual(
    events.at(-1)?.groups.map((g) => g.rule_id),
    ['K8S-001'],
    'only the reopened group',
  );
  assert.equal(
    events.at(-1)?.groups[0]?.first_seen,
    created.groups.find((g) => g.rule_id === 'K8S-001')?.first_seen,
  );
});
