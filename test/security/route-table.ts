/**
 * Every authenticated route, once. The security suite (routes.security.test.ts) runs the common
 * cases against each line: no token, bad token, expired token, revoked key, another tenant,
 * another account under an account key, and a role one step too low. A route missing here fails
 * the suite, so a new endpoint is covered by adding one line.
 */
import type { Role } from '../../src/http/actor.js';
import type { RbacFixture } from '../identities/support.js';

/** RbacFixture: an identity with a risk, a binding, group, user, role and cluster role (identities/support.ts). */
export interface SecurityFixture extends RbacFixture {
  accountId: string;
  userId: string;
  accessKeyId: string;
  /** a cluster of the account holding one pod (test/ingest/security-fixture.ts) */
  clusterId: string;
  resourceId: string;
  resourceUid: string;
  registryId: string;
  tenantId: string;
  /** a configured integration of the tenant (mock-siem) and a tenant-wide knowledge-base collection */
  integrationId: string;
  collectionName: string;
  /** a finding group of the cluster (its pod is privileged: src/modules/findings/testing.ts) */
  findingGroupId: string;
}

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** OpenAPI-style path; `{account_id}`, `{user_id}`, `{id}`, `{cluster_id}` ... are filled from the fixture */
  path: string;
  /** the lowest role that may call it */
  role: Role;
  /** true when the route names an account (out-of-scope callers get 404) */
  accountScoped: boolean;
  /**
   * For routes that are not account-scoped, what another tenant's caller gets: 404, an empty list,
   * or (for an id in the body) a 400 that reads exactly like an unknown id. `forbidden`: a global
   * route reserved to one tenant (feed imports), which answers 403 to every other tenant.
   * `own_view`: a route about the caller itself (who am I), which names nothing of anyone else.
   */
  otherTenant?: 'not_found' | 'empty_list' | 'unknown_reference' | 'forbidden' | 'own_view';
  body?: (fixture: SecurityFixture) => unknown;
}

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/console/session', role: 'viewer', accountScoped: false, otherTenant: 'own_view' },
  { method: 'GET', path: '/accounts', role: 'viewer', accountScoped: false, otherTenant: 'empty_list' },
  { method: 'GET', path: '/accounts/{account_id}', role: 'viewer', accountScoped: true },
  { method: 'GET', path: '/accounts/{account_id}/users', role: 'viewer', accountScoped: true },
  {
    method: 'GET',
    path: '/accounts/{account_id}/users/{user_id}/roles',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'PUT',
    path: '/accounts/{account_id}/users/{user_id}/roles',
    role: 'admin',
    accountScoped: true,
    body: () => ({ roles: [{ level: 'tenant', name: 'admin' }] }),
  },
  {
    method: 'POST',
    path: '/accounts/access_keys',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'unknown_reference',
    body: (f) => ({ name: 'security', scope: 'account', account_id: f.accountId }),
  },
  {
    method: 'GET',
    path: '/accounts/access_keys',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'empty_list',
  },
  {
    method: 'GET',
    path: '/accounts/access_keys/{id}',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'PUT',
    path: '/accounts/access_keys/{id}/revoke',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'POST',
    path: '/accounts/{account_id}/clusters',
    role: 'editor',
    accountScoped: true,
    body: () => ({ name: 'x' }),
  },
  { method: 'GET', path: '/accounts/{account_id}/clusters', role: 'viewer', accountScoped: true },
  {
    method: 'GET',
    path: '/accounts/{account_id}/clusters/{cluster_id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'POST',
    path: '/accounts/{account_id}/clusters/{cluster_id}/ingest/kubernetes',
    role: 'editor',
    accountScoped: true,
    body: () => ({ apiVersion: 'v1', kind: 'List', items: [] }),
  },
  { method: 'GET', path: '/accounts/{account_id}/resources', role: 'viewer', accountScoped: true },
  {
    method: 'GET',
    path: '/clusters/{cluster_id}/resources/{resource_id}',
    role: 'viewer',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'GET',
    path: '/clusters/{cluster_id}/resources/{uid}/latest',
    role: 'viewer',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  { method: 'GET', path: '/accounts/{account_id}/inventory_containers', role: 'viewer', accountScoped: true },
  { method: 'GET', path: '/accounts/{account_id}/registries', role: 'viewer', accountScoped: true },
  {
    method: 'POST',
    path: '/accounts/{account_id}/registries',
    role: 'editor',
    accountScoped: true,
    body: () => ({ type: 'generic', repository_name: 'registry.example.com/team' }),
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/registries/{registry_id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/clusters/{cluster_id}/actions',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'POST',
    path: '/accounts/{account_id}/clusters/{cluster_id}/actions',
    role: 'editor',
    accountScoped: true,
    body: () => ({
      action_type: 'terminate_pod',
      target_namespace: 'payments',
      target_pod_name: 'debug-shell',
    }),
  },
  { method: 'GET', path: '/accounts/{account_id}/identities', role: 'viewer', accountScoped: true },
  { method: 'GET', path: '/accounts/{account_id}/identities/filters', role: 'viewer', accountScoped: true },
  {
    method: 'GET',
    path: '/accounts/{account_id}/identities/reports/latest',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/identities/{identity_id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/identities/{identity_id}/risks/{risk_type}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/resources/rbac/clusterrolebindings/{id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/resources/rbac/groups/{id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/resources/rbac/users/{id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/resources/rbac/roles/{uid}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/resources/rbac/clusterroles/{uid}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'POST',
    path: '/accounts/{account_id}/clusters/{cluster_id}/ingest/vulnerabilities',
    role: 'editor',
    accountScoped: true,
  },
  { method: 'GET', path: '/accounts/{account_id}/inventory_packages', role: 'viewer', accountScoped: true },
  {
    method: 'GET',
    path: '/accounts/{account_id}/inventory_packages/facets',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/reports/inventory_cves',
    role: 'viewer',
    accountScoped: true,
  },
  { method: 'POST', path: '/feeds/import', role: 'admin', accountScoped: false, otherTenant: 'forbidden' },
  {
    method: 'POST',
    path: '/accounts/{account_id}/clusters/{cluster_id}/ingest/runtime',
    role: 'editor',
    accountScoped: true,
    body: () => ({
      type: 'process_exec',
      timestamp: '2025-01-01T00:00:00Z',
      container: { id: 'containerd://0123456789ab', name: 'app', image_name: 'app:1' },
      kubernetes: { namespace: 'default', pod: 'app-0' },
      process: { pid: 1, ppid: 0, comm: 'app', args: [], uid: 0, gid: 0 },
    }),
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/container_runtime_insights',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/container_runtime_insights/http_requests',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/container_runtime_insights/{id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/container_runtime_latest_baseline_fingerprints',
    role: 'viewer',
    accountScoped: true,
  },
  { method: 'GET', path: '/accounts/{account_id}/runtime_settings', role: 'viewer', accountScoped: true },
  {
    method: 'PUT',
    path: '/accounts/{account_id}/runtime_settings',
    role: 'admin',
    accountScoped: true,
    body: () => ({ learning_window_seconds: 600, learning_window_max_events: null, trusted_ip_prefixes: [] }),
  },
  {
    method: 'GET',
    path: '/tenants/{tenant_id}/integrations/providers',
    role: 'viewer',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'GET',
    path: '/tenants/{tenant_id}/integrations/external',
    role: 'viewer',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'POST',
    path: '/tenants/{tenant_id}/integrations/external',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
    body: () => ({ name: 'security', type: 'mock-siem', config: { index: 'posture', api_key: 'k' } }),
  },
  {
    method: 'GET',
    path: '/tenants/{tenant_id}/integrations/external/{integration_id}',
    role: 'viewer',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'PUT',
    path: '/tenants/{tenant_id}/integrations/external/{integration_id}',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
    body: () => ({ name: 'security', type: 'mock-siem', config: { index: 'posture', api_key: 'k' } }),
  },
  {
    method: 'DELETE',
    path: '/tenants/{tenant_id}/integrations/external/{integration_id}',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'GET',
    path: '/tenants/{tenant_id}/integrations/external/{integration_id}/deliveries',
    role: 'viewer',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'GET',
    path: '/tenants/{tenant_id}/knowledge_base/collections',
    role: 'viewer',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'POST',
    path: '/tenants/{tenant_id}/knowledge_base/collections',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
    body: () => ({ name: 'security-new' }),
  },
  {
    method: 'DELETE',
    path: '/tenants/{tenant_id}/knowledge_base/collections/{name}',
    role: 'admin',
    accountScoped: false,
    otherTenant: 'not_found',
  },
  {
    method: 'GET',
    path: '/tenants/{tenant_id}/accounts/{account_id}/knowledge_base/collections',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'POST',
    path: '/tenants/{tenant_id}/accounts/{account_id}/knowledge_base/collections',
    role: 'admin',
    accountScoped: true,
    body: () => ({ name: 'security-new' }),
  },
  {
    method: 'DELETE',
    path: '/tenants/{tenant_id}/accounts/{account_id}/knowledge_base/collections/{name}',
    role: 'admin',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/unified_findings/groups',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'GET',
    path: '/accounts/{account_id}/unified_findings/groups/{group_id}',
    role: 'viewer',
    accountScoped: true,
  },
  {
    method: 'PUT',
    path: '/accounts/{account_id}/unified_findings/groups/{group_id}/status',
    role: 'editor',
    accountScoped: true,
    body: () => ({ status: 'ignored' }),
  },
];

export function fillPath(path: string, fixture: SecurityFixture): string {
  return path
    .replace('/rbac/clusterrolebindings/{id}', `/rbac/clusterrolebindings/${fixture.clusterRoleBindingUid}`)
    .replace('/rbac/groups/{id}', `/rbac/groups/${fixture.groupId}`)
    .replace('/rbac/users/{id}', `/rbac/users/${fixture.rbacUserId}`)
    .replace('/rbac/roles/{uid}', `/rbac/roles/${fixture.roleUid}`)
    .replace('/rbac/clusterroles/{uid}', `/rbac/clusterroles/${fixture.clusterRoleUid}`)
    .replace('{identity_id}', fixture.identityId)
    .replace('{risk_type}', fixture.riskType)
    .replace('{account_id}', fixture.accountId)
    .replace('{user_id}', fixture.userId)
    .replace('{id}', fixture.accessKeyId)
    .replace('{cluster_id}', fixture.clusterId)
    .replace('{resource_id}', fixture.resourceId)
    .replace('{uid}', fixture.resourceUid)
    .replace('{registry_id}', fixture.registryId)
    .replace('{group_id}', fixture.findingGroupId)
    .replace('{tenant_id}', fixture.tenantId)
    .replace('{integration_id}', fixture.integrationId)
    .replace('{name}', fixture.collectionName);
}
