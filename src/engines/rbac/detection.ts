/**
 * Runs the risk rules over the grants of an identity. A risk is one (rule, scope) pair: "reads
 * secrets cluster-wide" and "reads secrets in namespace shop" are two risks of one type, each
 * with the bindings and roles that give it. Grants are shared by every identity they reach
 * (a binding to `system:serviceaccounts` reaches them all), so each grant is evaluated once per
 * rule and the result cached.
 */
import type { GrantRef, IdentityDraft } from './identities.js';
import type { Grant, Handles } from './permissions.js';
import {
  NAMESPACE_SCOPE_FACTOR,
  type PermissionRiskRule,
  RISK_RULES,
  type RiskRule,
  UNUSED_WITHOUT_GRANTS_FACTOR,
} from './risk-rules.js';
import type { ObjectHandle } from './types.js';

/** What one grant gives towards one part of a rule: its best factor and who supplies it. */
interface GrantMatch {
  factor: number;
  /** The bound role and/or aggregated components whose rules match, with their best factor. */
  sources: Map<ObjectHandle, number>;
}

/** A detected risk before ids, fingerprints and scores are attached. */
export interface RiskInstance {
  rule: RiskRule;
  /** '' cluster-wide, else a namespace. */
  scope: string;
  /** Share of the rule's weight, 0 < factor <= 1. */
  factor: number;
  /** Bindings and roles behind the risk, each with the factor it alone would give. */
  resources: Map<ObjectHandle, number>;
  /** How many bindings produce it. */
  grantCount: number;
}

export const scopeFactor = (scope: string): number => (scope === '' ? 1 : NAMESPACE_SCOPE_FACTOR);

const PERMISSION_RULES = RISK_RULES.filter((rule): rule is PermissionRiskRule => rule.kind === 'permission');

function evaluate(rule: PermissionRiskRule, partIndex: number, grant: Grant): GrantMatch | null {
  const check = rule.parts[partIndex]!;
  const clusterWide = grant.scope === '';
  const sources = new Map<ObjectHandle, number>();
  let factor = 0;
  for (const { rule: policy, sources: holders } of grant.rules) {
    const share = check(policy, clusterWide);
    if (share <= 0) continue;
    factor = Math.max(factor, share);
    for (const holder of holders) sources.set(holder, Math.max(sources.get(holder) ?? 0, share));
  }
  if (
    partIndex === 0 &&
    rule.boundClusterRole !== undefined &&
    grant.role.kind === 'ClusterRole' &&
    grant.role.name === rule.boundClusterRole
  ) {
    factor = 1;
    sources.set(grant.role, 1);
  }
  return factor > 0 ? { factor, sources } : null;
}

/** What one grant gives towards a rule: per part, a match or null. */
interface RuleMatches {
  rule: PermissionRiskRule;
  parts: (GrantMatch | null)[];
}

/**
 * Memoizes rule evaluation per grant for one computation: a grant is evaluated against every
 * rule once, however many identities it reaches; only rules it matches at all are kept.
 */
export function createGrantEvaluator() {
  const cache = new Map<Grant, RuleMatches[]>();
  return (grant: Grant): RuleMatches[] => {
    let matches = cache.get(grant);
    if (matches === undefined) {
      matches = [];
      for (const rule of PERMISSION_RULES) {
        const parts = rule.parts.map((_, partIndex) => evaluate(rule, partIndex, grant));
        if (parts.some((part) => part !== null)) matches.push({ rule, parts });
      }
      cache.set(grant, matches);
    }
    return matches;
  };
}

export type GrantEvaluator = ReturnType<typeof createGrantEvaluator>;

function addResource(resources: Map<ObjectHandle, number>, handle: ObjectHandle, factor: number): void {
  resources.set(handle, Math.max(resources.get(handle) ?? 0, factor));
}

type ScopeMatches = { grant: Grant; match: GrantMatch }[][];

function detectPermissionRisks(
  identity: IdentityDraft,
  refs: readonly GrantRef[],
  evaluateGrant: GrantEvaluator,
): RiskInstance[] {
  // rule -> scope -> per part, the grants matching it
  const found = new Map<PermissionRiskRule, Map<string, ScopeMatches>>();
  for (const { grant, via } of refs) {
    for (const { rule, parts } of evaluateGrant(grant)) {
      if (rule.directOnly && via !== null) continue;
      let byScope = found.get(rule);
      if (byScope === undefined) {
        byScope = new Map();
        found.set(rule, byScope);
      }
      let scoped = byScope.get(grant.scope);
      if (scoped === undefined) {
        scoped = rule.parts.map(() => []);
        byScope.set(grant.scope, scoped);
      }
      parts.forEach((match, partIndex) => {
        if (match !== null) scoped[partIndex]!.push({ grant, match });
      });
    }
  }
  const instances: RiskInstance[] = [];
  for (const rule of PERMISSION_RULES) {
    const byScope = found.get(rule);
    if (byScope === undefined) continue;
    const subject = rule.subjectFactor?.(identity) ?? 1;
    if (subject <= 0) continue;
    for (const [scope, parts] of byScope) {
      // Every part must be held in this scope; the weakest part bounds the danger.
      if (parts.some((matches) => matches.length === 0)) continue;
      const partFactor = Math.min(
        ...parts.map((matches) => matches.reduce((best, { match }) => Math.max(best, match.factor), 0)),
      );
      const multiplier = scopeFactor(scope) * subject;
      const resources = new Map<ObjectHandle, number>();
      const grants = new Set<Grant>();
      for (const { grant, match } of parts.flat()) {
        grants.add(grant);
        addResource(resources, grant.binding, match.factor * multiplier);
        addResource(resources, grant.role, match.factor * multiplier);
        for (const [source, factor] of match.sources) addResource(resources, source, factor * multiplier);
      }
      instances.push({ rule, scope, factor: partFactor * multiplier, resources, grantCount: grants.size });
    }
  }
  return instances;
}

const UNUSED_RULE = RISK_RULES.find((rule) => rule.kind === 'usage')!;

/** Control-plane components use kube-system accounts from outside any pod (the controller manager's
 * per-controller credentials; managed control planes show no pods at all): never "unused". */
const mayBeUnused = (identity: IdentityDraft) =>
  identity.kind === 'ServiceAccount' && identity.namespace !== 'kube-system';

/** The unused_identity risk of a service account that no workload uses. */
function detectUnused(identity: IdentityDraft, linkedWorkloads: number, handles: Handles): RiskInstance[] {
  if (!mayBeUnused(identity) || linkedWorkloads > 0) return [];
  const factor = identity.direct.length > 0 ? 1 : UNUSED_WITHOUT_GRANTS_FACTOR;
  const account = handles('ServiceAccount', identity.namespace, identity.name, identity.serviceAccount);
  const resources = new Map<ObjectHandle, number>([[account, factor]]);
  for (const grant of identity.direct) addResource(resources, grant.binding, factor);
  const grantCount = Math.max(1, identity.direct.length);
  return [{ rule: UNUSED_RULE, scope: identity.namespace, factor, resources, grantCount }];
}

export function detectRisks(
  identity: IdentityDraft,
  refs: readonly GrantRef[],
  linkedWorkloads: number,
  evaluateGrant: GrantEvaluator,
  handles: Handles,
): RiskInstance[] {
  return [
    ...detectPermissionRisks(identity, refs, evaluateGrant),
    ...detectUnused(identity, linkedWorkloads, handles),
  ];
}
