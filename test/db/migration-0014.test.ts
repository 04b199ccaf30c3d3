/**
 * Migration 0014 retires the vulnerability findings of the per-workload shape (source_type
 * kubeobject) as an evaluation would: findings get deleted_at, open groups close by the
 * evaluation, ignored and closed groups keep their status; the per-image vulnerability findings
 * and every other family are left alone. Rows of the old shape are written as the owner (no code
 * writes them any more), then the migration runs again. The process that applied it then
 * evaluates every running image once, so per-image groups do not wait for the next scan.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { migrate } from '../../src/db/migrator.js';
import { nginxPod } from '../../src/modules/findings/test-objects.js';
import { evaluateImagesAfterUpgrade } from '../../src/modules/findings/upgrade.js';
import { pushObjects } from '../identities/support.js';
import { createCluster } from '../ingest/sample.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { pushOk as pushScanOk, scanDoc } from '../vulnerabilities/support.js';

const MIGRATION = '0014-image-vulnerability-findings';
const EARLIER = new Date('2026-01-01T00:00:00Z');

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Shape {
  type: string;
  sourceType: string;
  status: 'open' | 'closed' | 'ignored';
  /** deleted_at of each of the group's findings (null: live) */
  findings: (Date | null)[];
}

async function insertGroup(scope: { accountId: string; tenantId: string; clusterId: string }, shape: Shape) {
  const groupId = randomUUID();
  const family = shape.type === 'vulnerability' ? 'vulnerability' : 'misconfiguration';
  await t.db.query(
    `insert into finding_groups (account_id, id, tenant_id, cluster_id, group_key, type, rule_id, rule_title,
       severity, severity_int, source_kind, source_type, source_id, source_name, source_namespace, rule_attrs,
       source_attrs, status, status_changed_at, first_seen, last_seen, event_timestamp, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, 'R-1', 'rule', 'critical', 5, 'Deployment', $7, 'uid-1', 'web', 'shop',
             '{}', '{}', $8, $9, $9, $9, $9, $9, $9)`,
    [
      scope.accountId,
      groupId,
      scope.tenantId,
      scope.clusterId,
      randomUUID(),
      shape.type,
      shape.sourceType,
      shape.status,
      EARLIER,
    ],
  );
  for (const deletedAt of shape.findings) {
    await t.db.query(
      `insert into findings (account_id, id, group_id, tenant_id, cluster_id, fingerprint, family, source_key, type,
         rule_id, rule_title, severity, severity_int, source_kind, source_type, source_id, source_name,
         source_namespace, source_owner_id, source_actor, owner_id, messages, fix_attrs, rule_attrs, source_attrs,
         tags, content_hash, event_timestamp, created_at, updated_at, deleted_at)
       values ($1, $2, $3, $4, $5, $6, $7, 'key', $8, 'R-1', 'rule', 'critical', 5, 'Deployment', $9, 'uid-1',
               'web', 'shop', '', '', '', '[]', '{}', '{}', '{}', '{}', 'hash', $10, $10, $10, $11)`,
      [
        scope.accountId,
        randomUUID(),
        groupId,
        scope.tenantId,
        scope.clusterId,
        randomUUID(),
        family,
        shape.type,
        shape.sourceType,
        EARLIER,
        deletedAt,
      ],
    );
  }
  return groupId;
}

async function state(groupId: string) {
  const group = await t.db.query<{
    status: string;
    status_changed_at: Date;
    status_changed_by: string | null;
  }>('select status, status_changed_at, status_changed_by from finding_groups where id = $1', [groupId]);
  const findings = await t.db.query<{ deleted_at: Date | null }>(
    'select deleted_at from findings where group_id = $1 order by deleted_at nulls first',
    [groupId],
  );
  const [row] = group.rows;
  assert.ok(row, 'the group is kept');
  return { ...row, deleted: findings.rows.map((finding) => finding.deleted_at?.toISOString() ?? null) };
}

test('0014 retires per-workload vulnerability findings and closes their open groups; nothing else', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'upgraded');
  const scope = { accountId: tenant.accountId, tenantId: tenant.tenantId, clusterId: cluster.id };
  const workloadVuln = { type: 'vulnerability', sourceType: 'kubeobject' } as const;
  const open = await insertGroup(scope, { ...workloadVuln, status: 'open', findings: [null, null] });
  const ignored = await insertGroup(scope, { ...workloadVuln, status: 'ignored', findings: [null] });
  const closed = await insertGroup(scope, { ...workloadVuln, status: 'closed', findings: [EARLIER] });
  const image = await insertGroup(scope, {
    type: 'vulnerability',
    sourceType: 'image',
    status: 'open',
    findings: [null],
  });
  const misconfiguration = await insertGroup(scope, {
    type: 'k8s_misconfiguration',
    sourceType: 'kubeobject',
    status: 'open',
    findings: [null],
  });

  await t.db.query('delete from schema_migrations where id = $1', [MIGRATION]);
  assert.deepEqual(await migrate(t.db), [MIGRATION]);

  const retiredOpen = await state(open);
  assert.equal(retiredOpen.status, 'closed');
  assert.ok(retiredOpen.status_changed_at > EARLIER, 'the close is dated by the migration');
  assert.equal(retiredOpen.status_changed_by, null, 'closed by the evaluation, not a user');
  assert.ok(retiredOpen.deleted.every((at) => at !== null && at > EARLIER.toISOString()));

  const retiredIgnored = await state(ignored);
  assert.equal(retiredIgnored.status, 'ignored', 'only a user changes an ignored group');
  assert.ok(retiredIgnored.deleted.every((at) => at !== null));

  assert.deepEqual(await state(closed), {
    status: 'closed',
    status_changed_at: EARLIER,
    status_changed_by: null,
    deleted: [EARLIER.toISOString()],
  });
  for (const untouched of [image, misconfiguration]) {
    assert.deepEqual(await state(untouched), {
      status: 'open',
      status_changed_at: EARLIER,
      status_changed_by: null,
      deleted: [null],
    });
  }
});

test('after applying 0014, every image running in a cluster gets its per-image groups at once', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'caught-up');
  await pushObjects(t, tenant, cluster.id, [nginxPod('web', 'edge')]);
  const account = { accountId: tenant.accountId, clusterId: cluster.id, token: tenant.adminToken, tenant };
  await pushScanOk(t, account, scanDoc('nginx-1.27.2.trivy.json'));
  // Before the upgrade the image had no per-image rows: remove what the scan's evaluation wrote.
  const scope = [tenant.accountId, cluster.id];
  await t.db.query(
    `delete from findings where account_id = $1 and cluster_id = $2 and family = 'vulnerability'`,
    scope,
  );
  await t.db.query(
    `delete from finding_groups where account_id = $1 and cluster_id = $2 and type = 'vulnerability'`,
    scope,
  );
  const vulnerabilityGroups = async () => {
    const res = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/unified_findings/groups?filters=type:vulnerability`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    return (res.body as { rule_id: string; source_type: string; status: string }[]).map(
      (g) => `${g.rule_id} ${g.source_type} ${g.status}`,
    );
  };

  assert.equal(await evaluateImagesAfterUpgrade(t.db, []), 0, 'nothing without the migration');
  assert.deepEqual(await vulnerabilityGroups(), []);

  await t.db.query('delete from schema_migrations where id = $1', [MIGRATION]);
  const applied = await migrate(t.db);
  assert.ok((await evaluateImagesAfterUpgrade(t.db, applied)) >= 1);
  assert.deepEqual(await vulnerabilityGroups(), ['VULN-002 image open']);
});
