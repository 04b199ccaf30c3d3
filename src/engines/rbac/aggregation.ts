/**
 * Aggregated ClusterRoles. A ClusterRole with `aggregationRule` holds the rules of every
 * ClusterRole its `clusterRoleSelectors` select (Kubernetes' clusterrole-aggregation controller).
 * The engine recomputes the union instead of trusting the `rules` the controller last wrote, so a
 * component role pushed in the same ingestion counts at once, and keeps those written rules too,
 * so a push that lacks the components loses nothing.
 *
 * Aggregation is transitive (`admin` selects `edit`, which selects `view`): the effective rules of
 * a role are its own plus those of every role reachable through selections. Reachability is a
 * plain graph search, so cycles are harmless and the result does not depend on input order.
 */
import { canonicalJson, sortBy } from './order.js';
import type { ClusterRoleObject, LabelSelector, ObjectHandle, PolicyRule } from './types.js';

/** A rule with every role that literally holds it (the bound role or aggregated components). */
export interface EffectiveRule {
  rule: PolicyRule;
  sources: ObjectHandle[];
}

/** Kubernetes label selector semantics; an empty selector selects everything. */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels)) if (labels[key] !== value) return false;
  for (const { key, operator, values } of selector.matchExpressions) {
    const has = Object.hasOwn(labels, key);
    const value = labels[key] ?? '';
    const ok =
      operator === 'In'
        ? has && values.includes(value)
        : operator === 'NotIn'
          ? !has || !values.includes(value)
          : operator === 'Exists'
            ? has
            : operator === 'DoesNotExist'
              ? !has
              : false; // an operator Kubernetes would reject selects nothing
    if (!ok) return false;
  }
  return true;
}

export interface AggregationResult {
  /** Effective rules per ClusterRole name. */
  rules: Map<string, EffectiveRule[]>;
  /** Components (transitively) aggregated into each aggregated ClusterRole, by name. */
  components: Map<string, ClusterRoleObject[]>;
}

/** Merges identical rules, keeping every source; the order is canonical. */
export function mergeRules(entries: Iterable<{ rule: PolicyRule; source: ObjectHandle }>): EffectiveRule[] {
  const byRule = new Map<string, EffectiveRule>();
  for (const { rule, source } of entries) {
    const key = canonicalJson(rule);
    const existing = byRule.get(key);
    if (existing === undefined) byRule.set(key, { rule, sources: [source] });
    else if (!existing.sources.some((known) => known.key === source.key)) existing.sources.push(source);
  }
  return sortBy(byRule.entries(), ([key]) => [key]).map(([, effective]) => ({
    rule: effective.rule,
    sources: sortBy(effective.sources, (source) => [source.key]),
  }));
}

export function aggregateClusterRoles(
  clusterRoles: readonly ClusterRoleObject[],
  handleOf: (role: ClusterRoleObject) => ObjectHandle,
): AggregationResult {
  const byName = new Map(clusterRoles.map((role) => [role.meta.name, role]));
  const selected = new Map<string, ClusterRoleObject[]>();
  for (const role of clusterRoles) {
    if (role.selectors === null) continue;
    const selectors = role.selectors;
    selected.set(
      role.meta.name,
      clusterRoles.filter(
        (other) =>
          other.meta.name !== role.meta.name &&
          selectors.some((selector) => selectorMatches(selector, other.meta.labels)),
      ),
    );
  }

  const rules = new Map<string, EffectiveRule[]>();
  const components = new Map<string, ClusterRoleObject[]>();
  for (const role of clusterRoles) {
    const reached = new Map<string, ClusterRoleObject>();
    const queue = [...(selected.get(role.meta.name) ?? [])];
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (next.meta.name === role.meta.name || reached.has(next.meta.name)) continue;
      reached.set(next.meta.name, next);
      queue.push(...(selected.get(next.meta.name) ?? []));
    }
    const members = sortBy(reached.values(), (member) => [member.meta.name]);
    if (role.selectors !== null) components.set(role.meta.name, members);
    rules.set(
      role.meta.name,
      mergeRules(
        [role, ...members].flatMap((holder) => {
          const source = handleOf(byName.get(holder.meta.name) ?? holder);
          return holder.rules.map((rule) => ({ rule, source }));
        }),
      ),
    );
  }
  return { rules, components };
}
