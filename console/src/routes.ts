/**
 * Every view of the console: one line here and one module under views/. A view is offered (in the
 * navigation and at its URL) only when this server's /openapi.json has every operation it
 * `needs`, so a console built before an endpoint lands never shows an empty shell for it.
 */
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';
import type { Account } from './api/types.js';

export interface ViewProps {
  /** the account the view is about (for tenant-wide views, the one selected in the header) */
  account: Account;
  params: Record<string, string>;
}

/** The navigation's sections, in order. */
export const NAV_SECTIONS = ['Posture', 'Risks', 'Runtime', 'Settings'] as const;
export type NavSection = (typeof NAV_SECTIONS)[number];

export interface ViewRoute {
  id: string;
  /** path below /console; `:name` segments become params */
  pattern: string;
  title: string;
  nav?: { label: string; section: NavSection };
  needs: string[];
  view: LazyExoticComponent<ComponentType<ViewProps>>;
}

const CLUSTERS = 'GET /accounts/{account_id}/clusters';

export const ROUTES: ViewRoute[] = [
  {
    id: 'overview',
    pattern: 'accounts/:accountId',
    title: 'Overview',
    nav: { label: 'Overview', section: 'Posture' },
    needs: ['GET /accounts/{account_id}'],
    view: lazy(() => import('./views/overview.js')),
  },
  {
    id: 'clusters',
    pattern: 'accounts/:accountId/clusters',
    title: 'Clusters',
    nav: { label: 'Clusters', section: 'Posture' },
    needs: [CLUSTERS],
    view: lazy(() => import('./views/clusters.js')),
  },
  {
    id: 'cluster',
    pattern: 'accounts/:accountId/clusters/:clusterId',
    title: 'Cluster',
    needs: ['GET /accounts/{account_id}/clusters/{cluster_id}'],
    view: lazy(() => import('./views/cluster.js')),
  },
  {
    id: 'resources',
    pattern: 'accounts/:accountId/resources',
    title: 'Resources',
    nav: { label: 'Resources', section: 'Posture' },
    needs: ['GET /accounts/{account_id}/resources', CLUSTERS],
    view: lazy(() => import('./views/resources.js')),
  },
  {
    id: 'resource',
    pattern: 'accounts/:accountId/clusters/:clusterId/resources/:resourceId',
    title: 'Resource',
    needs: ['GET /clusters/{cluster_id}/resources/{resource_id}'],
    view: lazy(() => import('./views/resource.js')),
  },
  {
    id: 'object',
    pattern: 'accounts/:accountId/clusters/:clusterId/objects/:uid',
    title: 'Resource',
    needs: ['GET /clusters/{cluster_id}/resources/{uid}/latest'],
    view: lazy(() => import('./views/resource.js')),
  },
  {
    id: 'containers',
    pattern: 'accounts/:accountId/containers',
    title: 'Containers',
    nav: { label: 'Containers', section: 'Posture' },
    needs: ['GET /accounts/{account_id}/inventory_containers'],
    view: lazy(() => import('./views/containers.js')),
  },
  {
    id: 'packages',
    pattern: 'accounts/:accountId/packages',
    title: 'Packages',
    nav: { label: 'Packages', section: 'Risks' },
    needs: [
      'GET /accounts/{account_id}/inventory_packages',
      'GET /accounts/{account_id}/inventory_packages/facets',
    ],
    view: lazy(() => import('./views/packages.js')),
  },
  {
    id: 'cves',
    pattern: 'accounts/:accountId/cves',
    title: 'CVE report',
    nav: { label: 'CVE report', section: 'Risks' },
    needs: ['GET /accounts/{account_id}/reports/inventory_cves', CLUSTERS],
    view: lazy(() => import('./views/cve-report.js')),
  },
  {
    id: 'identities',
    pattern: 'accounts/:accountId/identities',
    title: 'Identities',
    nav: { label: 'Identities', section: 'Risks' },
    needs: ['GET /accounts/{account_id}/identities', 'GET /accounts/{account_id}/identities/filters'],
    view: lazy(() => import('./views/identities.js')),
  },
  {
    id: 'identity',
    pattern: 'accounts/:accountId/identities/:identityId',
    title: 'Identity',
    needs: ['GET /accounts/{account_id}/identities/{identity_id}'],
    view: lazy(() => import('./views/identity.js')),
  },
  {
    id: 'findings',
    pattern: 'accounts/:accountId/findings',
    title: 'Findings',
    nav: { label: 'Findings', section: 'Risks' },
    needs: ['GET /accounts/{account_id}/unified_findings/groups'],
    view: lazy(() => import('./views/finding-groups.js')),
  },
  {
    id: 'finding-group',
    pattern: 'accounts/:accountId/findings/:groupId',
    title: 'Finding group',
    needs: ['GET /accounts/{account_id}/unified_findings/groups/{group_id}'],
    view: lazy(() => import('./views/finding-group.js')),
  },
  {
    id: 'insights',
    pattern: 'accounts/:accountId/runtime/insights',
    title: 'Runtime insights',
    nav: { label: 'Insights', section: 'Runtime' },
    needs: ['GET /accounts/{account_id}/container_runtime_insights', CLUSTERS],
    view: lazy(() => import('./views/insights.js')),
  },
  {
    id: 'insight',
    pattern: 'accounts/:accountId/runtime/insights/:insightId',
    title: 'Runtime insight',
    needs: ['GET /accounts/{account_id}/container_runtime_insights/{id}'],
    view: lazy(() => import('./views/insight.js')),
  },
  {
    id: 'http-observations',
    pattern: 'accounts/:accountId/runtime/http',
    title: 'HTTP observations',
    nav: { label: 'HTTP observations', section: 'Runtime' },
    needs: ['GET /accounts/{account_id}/container_runtime_insights/http_requests', CLUSTERS],
    view: lazy(() => import('./views/http-observations.js')),
  },
  {
    id: 'baselines',
    pattern: 'accounts/:accountId/runtime/baselines',
    title: 'Baselines',
    nav: { label: 'Baselines', section: 'Runtime' },
    needs: ['GET /accounts/{account_id}/container_runtime_latest_baseline_fingerprints', CLUSTERS],
    view: lazy(() => import('./views/baselines.js')),
  },
  {
    id: 'registries',
    pattern: 'accounts/:accountId/registries',
    title: 'Registries',
    nav: { label: 'Registries', section: 'Posture' },
    needs: ['GET /accounts/{account_id}/registries'],
    view: lazy(() => import('./views/registries.js')),
  },
  {
    id: 'actions',
    pattern: 'accounts/:accountId/actions',
    title: 'Cluster actions',
    nav: { label: 'Cluster actions', section: 'Posture' },
    needs: ['GET /accounts/{account_id}/clusters/{cluster_id}/actions', CLUSTERS],
    view: lazy(() => import('./views/actions.js')),
  },
  {
    id: 'users',
    pattern: 'accounts/:accountId/users',
    title: 'Users and roles',
    nav: { label: 'Users and roles', section: 'Settings' },
    needs: ['GET /accounts/{account_id}/users', 'GET /accounts/{account_id}/users/{user_id}/roles'],
    view: lazy(() => import('./views/users.js')),
  },
  {
    id: 'access-keys',
    pattern: 'access-keys',
    title: 'Access keys',
    nav: { label: 'Access keys', section: 'Settings' },
    needs: ['GET /accounts/access_keys'],
    view: lazy(() => import('./views/access-keys.js')),
  },
  {
    id: 'integrations',
    pattern: 'integrations',
    title: 'Integrations',
    nav: { label: 'Integrations', section: 'Settings' },
    needs: [
      'GET /tenants/{tenant_id}/integrations/providers',
      'GET /tenants/{tenant_id}/integrations/external',
    ],
    view: lazy(() => import('./views/integrations.js')),
  },
];
