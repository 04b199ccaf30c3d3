/**
 * Helpers for the identity and access-control tests: small RBAC objects, the sample cluster with
 * its extra RBAC file (sample/cluster/rbac-extra.json), identity lookups through the API, and the
 * ids the shared security table needs.
 *
 * @example
 *   const cluster = await pushSampleWithRbac(t, tenant);
 *   const ledger = await identityNamed(t, tenant, 'k8s_service_account', 'payments', 'ledger');
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { containsPattern } from '../../src/http/search.js';
import { createCluster, type KubeJson, list, push, pushSampleCluster } from '../ingest/sample.js';
import type { TestApp, TestTenant } from '../support/harness.js';

const RBAC = 'rbac.authorization.k8s.io';
let version = 1000;
const nextVersion = () => String(++version);

const meta = (name: string, namespace?: string, extra: Record<string, unknown> = {}) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: randomUUID(),
  resourceVersion: nextVersion(),
  creationTimestamp: '2026-01-02T03:04:05Z',
  ...extra,
});

export interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export const serviceAccount = (namespace: string, name: string): KubeJson => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: meta(name, namespace),
});

export const role = (namespace: string, name: string, rules: Rule[]): KubeJson => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'Role',
  metadata: meta(name, namespace),
  rules: rules.map((rule) => ({ apiGroups: [''], ...rule })),
});

export const clusterRole = (
  name: string,
  rules: Rule[],
  options: { labels?: Record<string, string>; aggregate?: Record<string, string> } = {},
): KubeJson => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRole',
  metadata: meta(name, undefined, options.labels ? { labels: options.labels } : {}),
  ...(options.aggregate
    ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: options.aggregate }] } }
    : {}),
  rules: rules.map((rule) => ({ apiGroups: [''], ...rule })),
});

export type SubjectSpec = { kind: 'ServiceAccount' | 'User' | 'Group'; name: string; namespace?: string };

const subjects = (specs: SubjectSpec[]) =>
  specs.map((s) => (s.kind === 'ServiceAccount' ? s : { apiGroup: RBAC, ...s }));

export const roleBinding = (
  namespace: string,
  name: string,
  roleRef: { kind: 'Role' | 'ClusterRole'; name: string },
  specs: SubjectSpec[],
): KubeJson => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'RoleBinding',
  metadata: meta(name, namespace),
  roleRef: { apiGroup: RBAC, ...roleRef },
  subjects: subjects(specs),
});

export const clusterRoleBinding = (name: string, roleName: string, specs: SubjectSpec[]): KubeJson => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: meta(name),
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: roleName },
  subjects: subjects(specs),
});

/** A running pod as a service account (bare: it counts as its own workload). */
export const runningPod = (namespace: string, name: string, account: string): KubeJson => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: meta(name, namespace),
  spec: { serviceAccountName: account, containers: [{ name: 'app', image: 'nginx:1.27' }] },
  status: { phase: 'Running' },
});

/** A new version of an object (same uid), as the API server would hand it out after a change. */
export const bumped = (object: KubeJson, change: (copy: KubeJson) => void = () => {}): KubeJson => {
  const copy = structuredClone(object);
  copy.metadata.resourceVersion = nextVersion();
  change(copy);
  return copy;
};

export const deleted = (object: KubeJson) => JSON.stringify({ type: 'DELETED', object: bumped(object) });

/** Pushes objects (a List) and checks the push was accepted. */
export async function pushObjects(
  t: TestApp,
  tenant: TestTenant,
  clusterId: string,
  objects: KubeJson[],
  query = '',
  accountId = tenant.accountId,
) {
  const res = await push(t, tenant.adminToken, accountId, clusterId, list(objects), { query });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export async function pushWatchEvents(t: TestApp, tenant: TestTenant, clusterId: string, lines: string[]) {
  const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, lines.join('\n'));
  assert.equal(res.status, 200, res.text);
}

/** A cluster holding the sample cluster and sample/cluster/rbac-extra.json. */
export async function pushSampleWithRbac(t: TestApp, tenant: TestTenant, name = `sample-${randomUUID()}`) {
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, name);
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, cluster.id);
  const extra = readFileSync(new URL('../../sample/cluster/rbac-extra.json', import.meta.url), 'utf8');
  const res = await push(t, tenant.adminToken, tenant.accountId, cluster.id, extra);
  assert.equal(res.status, 200, res.text);
  return cluster;
}

export async function listIdentities(t: TestApp, tenant: TestTenant, query = '', token = tenant.adminToken) {
  return t.request({ method: 'GET', url: `/accounts/${tenant.accountId}/identities${query}`, token });
}

/** Every identity of the account (all pages), as the list returns them. */
export async function allIdentities(t: TestApp, tenant: TestTenant, query = '') {
  const res = await listIdentities(t, tenant, `?page_size=1000${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.entries as KubeJson[];
}

export async function identityNamed(
  t: TestApp,
  tenant: TestTenant,
  type: string,
  namespace: string,
  name: string,
  clusterId?: string,
) {
  const found = (await allIdentities(t, tenant)).filter(
    (identity) =>
      identity.type === type &&
      identity.namespace === namespace &&
      identity.name === name &&
      (clusterId === undefined || identity.source_id === clusterId),
  );
  assert.equal(found.length, 1, `identity ${type} ${namespace}/${name}`);
  return found[0];
}

/**
 * Rewrites the account's identities (all, or these) as rows written before their access texts
 * existed (migration 0016): the access as the rbac_objects jsonb, the texts null. The jsonb is
 * built from the texts, the fields the reads of such rows take from it; the recompute itself no
 * longer stores it (migration 0063). Rows already in that form are left as they are.
 */
export async function storeAccessAsJsonbOnly(t: TestApp, accountId: string, ids?: readonly string[]) {
  await t.db.query(
    `update identities
        set rbac_objects = jsonb_build_object(
              'assigned_roles', assigned_roles_json::jsonb,
              'permissions', access_json::jsonb -> 'permissions',
              'graph', access_json::jsonb -> 'graph'),
            assigned_roles_json = null, access_json = null
      where account_id = $1 and assigned_roles_json is not null and access_json is not null
        ${ids ? 'and id = any($2::uuid[])' : ''}`,
    ids ? [accountId, ids] : [accountId],
  );
}

export interface RbacFixture {
  identityId: string;
  riskType: string;
  clusterRoleBindingUid: string;
  groupId: string;
  rbacUserId: string;
  roleUid: string;
  clusterRoleUid: string;
}

/** RBAC objects in a cluster and the ids of what #16-#22 look up (the shared security table). */
export async function rbacFixture(t: TestApp, tenant: TestTenant, clusterId: string): Promise<RbacFixture> {
  const reader = role('payments', 'secret-reader', [{ resources: ['secrets'], verbs: ['get'] }]);
  const auditor = clusterRole('auditor', [{ resources: ['pods'], verbs: ['get', 'list'] }]);
  const binding = clusterRoleBinding('auditors', 'auditor', [
    { kind: 'Group', name: 'auditors' },
    { kind: 'User', name: 'dana@example.com' },
  ]);
  await pushObjects(t, tenant, clusterId, [
    serviceAccount('payments', 'api'),
    reader,
    roleBinding('payments', 'api-secrets', { kind: 'Role', name: 'secret-reader' }, [
      { kind: 'ServiceAccount', name: 'api', namespace: 'payments' },
    ]),
    auditor,
    binding,
  ]);
  const identities = await allIdentities(t, tenant);
  const find = (type: string, name: string) => identities.find((i) => i.type === type && i.name === name)!.id;
  return {
    identityId: find('k8s_service_account', 'api'),
    riskType: 'secrets_read',
    clusterRoleBindingUid: binding.metadata.uid,
    groupId: find('k8s_group', 'auditors'),
    rbacUserId: find('k8s_user', 'dana@example.com'),
    roleUid: reader.metadata.uid,
    clusterRoleUid: auditor.metadata.uid,
  };
}

/**
 * Two clusters of one account with history: the sample cluster with its extra RBAC, and a small
 * one holding rbacFixture's objects plus a ServiceAccount and a cluster-admin binding that were
 * both deleted again (a resolved identity and resolved risks). The clusters hold different
 * values and counts, which the per-cluster views (#15's values, #18's tallies) must keep apart.
 */
export async function twoClustersWithHistory(t: TestApp, tenant: TestTenant) {
  const first = await pushSampleWithRbac(t, tenant, 'first');
  const second = await createCluster(t, tenant.adminToken, tenant.accountId, 'second');
  await rbacFixture(t, tenant, second.id);
  const lonely = serviceAccount('shop', 'lonely');
  const admins = clusterRoleBinding('admins', 'cluster-admin', [{ kind: 'User', name: 'erin@example.com' }]);
  await pushObjects(t, tenant, second.id, [lonely, admins]);
  await pushWatchEvents(t, tenant, second.id, [deleted(lonely), deleted(admins)]);
  return { first, second };
}

/**
 * The oracle of `q` on the identities list: the ids of the account's identities whose name or
 * namespace contains `q` in any case (and whose status is `status`, if given), read from the
 * table, sorted.
 */
export async function identitiesMatching(
  t: TestApp,
  tenant: TestTenant,
  q: string,
  status?: string,
): Promise<string[]> {
  const { rows } = await t.db.query<{ id: string }>(
    `select id from identities
      where account_id = $1 and ($3::text is null or status = $3)
        and ((name collate "default") ilike $2 or (namespace collate "default") ilike $2)`,
    [tenant.accountId, containsPattern(q), status ?? null],
  );
  return rows.map((row) => row.id).sort();
}
