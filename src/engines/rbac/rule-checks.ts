/**
 * The checks the risk rules are built from. A check gives, for one PolicyRule of a grant, the
 * share of a rule's danger it carries: 0 no match, 1 unrestricted (matching.ts lowers it for
 * resourceNames).
 */
import { RESOURCE_NAMES_FACTOR, ruleFactor, type Target } from './matching.js';
import type { PolicyRule } from './types.js';

/** Share of a rule's danger carried by one PolicyRule of a grant (cluster-wide or namespaced). */
export type RuleCheck = (rule: PolicyRule, clusterWide: boolean) => number;

const CORE = '';

/** Any of the targets. */
export const targets =
  (...list: Target[]): RuleCheck =>
  (rule, clusterWide) =>
    ruleFactor(rule, list, clusterWide);

/** Creating pods, or controllers that create pods. */
export const WORKLOAD_CREATE: Target[] = [
  ...['pods', 'replicationcontrollers'].map((resource) => ({ apiGroup: CORE, resource, verbs: ['create'] })),
  ...['deployments', 'daemonsets', 'statefulsets', 'replicasets'].map((resource) => ({
    apiGroup: 'apps',
    resource,
    verbs: ['create'],
  })),
  ...['jobs', 'cronjobs'].map((resource) => ({ apiGroup: 'batch', resource, verbs: ['create'] })),
];

/** Exec/attach/port-forward over WebSockets is authorized as `get`, so `get` counts as much as `create`. */
export const podStream = (subresource: string): RuleCheck =>
  targets({ apiGroup: CORE, resource: `pods/${subresource}`, verbs: ['create', 'get'] });

/** Exec, or `kubectl debug` adding a container of one's choosing to a running pod: exec by another name. */
export const podExec: RuleCheck = targets(
  { apiGroup: CORE, resource: 'pods/exec', verbs: ['create', 'get'] },
  { apiGroup: CORE, resource: 'pods/ephemeralcontainers', verbs: ['update', 'patch'] },
);

/** Every verb on every resource of every API group, on every object. */
export const isFullWildcard = (rule: PolicyRule): boolean =>
  rule.apiGroups.includes('*') &&
  rule.resources.includes('*') &&
  rule.verbs.includes('*') &&
  rule.resourceNames.length === 0;

/** `*` as a verb or resource (including `*\/subresource`) of a resource rule. */
export const wildcard: RuleCheck = (rule) => {
  if (rule.resources.length === 0) return 0;
  const found = rule.verbs.includes('*') || rule.resources.some((r) => r === '*' || r.startsWith('*/'));
  if (!found) return 0;
  return rule.resourceNames.length > 0 ? RESOURCE_NAMES_FACTOR : 1;
};

const SELF_REVIEWS = new Set(['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'selfsubjectreviews']);
/** What the default discovery roles expose to everyone; anything beyond is worth a look. */
const PUBLIC_URLS = new Set([
  '/api',
  '/api/*',
  '/apis',
  '/apis/*',
  '/healthz',
  '/livez',
  '/readyz',
  '/openapi',
  '/openapi/*',
  '/version',
  '/version/',
]);

/**
 * Whether a rule gives more than Kubernetes' defaults give everyone (`system:basic-user`:
 * create self reviews; `system:discovery`, `system:public-info-viewer`: public URLs).
 */
export function beyondDefaults(rule: PolicyRule): boolean {
  const selfReviewOnly =
    rule.resources.every((resource) => SELF_REVIEWS.has(resource)) &&
    rule.apiGroups.every((group) => group === 'authorization.k8s.io' || group === 'authentication.k8s.io') &&
    rule.verbs.every((verb) => verb === 'create');
  const publicUrlsOnly = rule.nonResourceURLs.every((url) => PUBLIC_URLS.has(url));
  return (rule.resources.length > 0 && !selfReviewOnly) || !publicUrlsOnly;
}
