/**
 * Rule records (the description's access-control "Rule record"): one Kubernetes PolicyRule of a
 * Role or ClusterRole, where it applies, and what it is worth to an attacker. Its `severity` and
 * `tags` come from the identity risk rules (docs/identity-risk.md) the rule alone matches at that
 * scope; rules that depend on who holds them (broad_group_binding) are left out, as is
 * unused_identity, which is about accounts, not rules.
 *
 * Fields: `category` "rbac"; `type` "resource_rule" or "non_resource_rule"; `title` the verbs and
 * resources; `content` the rule as Kubernetes JSON; `status` "active"; `version` the role's
 * resourceVersion; `cluster_role_uid` / `role_uid` the holding role; tags `risk_type` (per
 * matching risk rule) and `aggregated_from` (the component ClusterRole the rule comes from).
 */
import { RISK_RULES, severityOf, stableId } from '../../engines/rbac/index.js';
import { canonicalJson } from '../../engines/rbac/order.js';
import { NAMESPACE_SCOPE_FACTOR, type PermissionRiskRule } from '../../engines/rbac/risk-rules.js';
import type { PolicyRule } from '../../engines/rbac/types.js';
import { iso } from '../../http/ids.js';
import type { RbacObjectRow } from './repository.js';
import type { StoredRule } from './sync.js';

const RULES_BY_RULE = RISK_RULES.filter(
  (rule): rule is PermissionRiskRule => rule.kind === 'permission' && rule.subjectFactor === undefined,
);

const policyOf = (rule: StoredRule): PolicyRule => ({
  apiGroups: rule.api_groups,
  resources: rule.resources,
  verbs: rule.verbs,
  resourceNames: rule.resource_names,
  nonResourceURLs: rule.non_resource_urls,
});

/** Risk types the rule matches at this scope, with the score each gives (weight x factor). */
export function ruleRisks(rule: StoredRule, role: { kind: string; name: string }, scope: string) {
  const policy = policyOf(rule);
  const clusterWide = scope === '';
  const found: { type: string; score: number }[] = [];
  for (const risk of RULES_BY_RULE) {
    let share = Math.max(0, ...risk.parts.map((part) => part(policy, clusterWide)));
    if (
      risk.boundClusterRole !== undefined &&
      role.kind === 'ClusterRole' &&
      role.name === risk.boundClusterRole
    ) {
      share = 1;
    }
    if (share > 0)
      found.push({
        type: risk.type,
        score: risk.weight * share * (clusterWide ? 1 : NAMESPACE_SCOPE_FACTOR),
      });
  }
  return found;
}

function title(rule: StoredRule): string {
  const verbs = rule.verbs.join(', ') || '(no verb)';
  if (rule.resources.length === 0) return `${verbs} on ${rule.non_resource_urls.join(', ') || '(nothing)'}`;
  const names = rule.resource_names.length > 0 ? ` named ${rule.resource_names.join(', ')}` : '';
  return `${verbs} on ${rule.resources.join(', ')}${names}`;
}

export function ruleRecord(role: RbacObjectRow, rule: StoredRule, scope: string) {
  const risks = ruleRisks(rule, role, scope);
  const worst = Math.max(0, ...risks.map((risk) => risk.score));
  const kubernetesRule = {
    apiGroups: rule.api_groups,
    resources: rule.resources,
    verbs: rule.verbs,
    resourceNames: rule.resource_names,
    nonResourceURLs: rule.non_resource_urls,
  };
  const where = scope === '' ? 'cluster-wide' : `in namespace ${scope}`;
  const components = rule.sources.filter((source) => source.uid !== role.uid);
  return {
    id: stableId('rule', role.object_id, scope, canonicalJson(kubernetesRule)),
    category: 'rbac',
    type: rule.resources.length > 0 ? 'resource_rule' : 'non_resource_rule',
    title: title(rule),
    description:
      risks.length > 0
        ? `Grants ${where}: ${risks.map((risk) => risk.type).join(', ')}.`
        : `Grants ${where}; matches no risk rule.`,
    content: JSON.stringify(kubernetesRule),
    severity: severityOf(worst),
    status: 'active',
    version: role.resource_version,
    created_at: iso(role.created_at),
    updated_at: iso(role.updated_at),
    deleted_at: null,
    cluster_role_uid: role.kind === 'ClusterRole' ? role.uid : '',
    role_uid: role.kind === 'Role' ? role.uid : '',
    namespace: scope,
    tags: [
      ...risks.map((risk) => ({ key: 'risk_type', source: 'posture', value: risk.type })),
      ...components.map((source) => ({ key: 'aggregated_from', source: 'kubernetes', value: source.name })),
    ],
    api_groups: rule.api_groups,
    resource_names: rule.resource_names,
    resources: rule.resources,
    verbs: rule.verbs,
  };
}

export type RuleRecord = ReturnType<typeof ruleRecord>;

/** Every rule of a role where it applies: a Role in its namespace, a ClusterRole as bound. */
export const ruleRecordsOf = (role: RbacObjectRow, scope: string): RuleRecord[] =>
  (role.rules ?? []).map((rule) => ruleRecord(role, rule, scope));
