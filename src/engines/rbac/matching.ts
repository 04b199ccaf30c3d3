/**
 * Kubernetes RBAC matching, as the API server's authorizer does it
 * (k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/rbac.go): `*` matches any verb, api group or
 * resource (subresources included); `*\/scale` matches the scale subresource of any resource; there
 * is no `pods/*`. Names are compared case-sensitively, as Kubernetes does.
 */
import type { PolicyRule } from './types.js';

export const verbMatches = (rule: PolicyRule, verb: string): boolean =>
  rule.verbs.includes('*') || rule.verbs.includes(verb);

export const apiGroupMatches = (rule: PolicyRule, group: string): boolean =>
  rule.apiGroups.includes('*') || rule.apiGroups.includes(group);

/** `resource` is `pods` or `pods/exec` (resource/subresource). */
export function resourceMatches(rule: PolicyRule, resource: string): boolean {
  const slash = resource.indexOf('/');
  const subresource = slash >= 0 ? resource.slice(slash + 1) : '';
  for (const granted of rule.resources) {
    if (granted === '*' || granted === resource) return true;
    if (subresource !== '' && granted === `*/${subresource}`) return true;
  }
  return false;
}

/** What a risk rule looks for: any of `verbs` on `apiGroup`/`resource`. */
export interface Target {
  apiGroup: string;
  resource: string;
  verbs: readonly string[];
  /**
   * Cluster-scoped resources (nodes, webhook configurations, users...) cannot be granted by a
   * RoleBinding: its rules only ever apply to requests inside its namespace.
   */
  clusterScoped?: boolean;
  /** resourceNames that make a restricted rule as dangerous as an unrestricted one. */
  sensitiveNames?: readonly string[];
}

/** How much of a rule's danger survives a `resourceNames` restriction. */
export const RESOURCE_NAMES_FACTOR = 0.5;

/**
 * Share of the target's danger that a rule carries: 0 no match, 1 unrestricted.
 * - `create` on a top-level resource cannot be limited by name (the name is not known when the
 *   request is authorized), so a rule with resourceNames never allows it: 0.
 * - Otherwise resourceNames limit the rule to named objects: RESOURCE_NAMES_FACTOR, unless one of
 *   the names is sensitive (binding `cluster-admin`, impersonating `system:masters`): 1.
 */
export function resourceNamesFactor(target: Target, verb: string, names: readonly string[]): number {
  if (names.length === 0) return 1;
  if (verb === 'create' && !target.resource.includes('/')) return 0;
  if (target.sensitiveNames?.some((name) => names.includes(name))) return 1;
  return RESOURCE_NAMES_FACTOR;
}

/** Best factor of a rule over the targets, within a grant that is cluster-wide or not. */
export function ruleFactor(rule: PolicyRule, targets: readonly Target[], clusterWide: boolean): number {
  let best = 0;
  for (const target of targets) {
    if (target.clusterScoped && !clusterWide) continue;
    if (!apiGroupMatches(rule, target.apiGroup) || !resourceMatches(rule, target.resource)) continue;
    for (const verb of target.verbs) {
      if (verbMatches(rule, verb))
        best = Math.max(best, resourceNamesFactor(target, verb, rule.resourceNames));
    }
  }
  return best;
}
