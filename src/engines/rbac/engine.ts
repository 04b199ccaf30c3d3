/**
 * computeIdentities: the Kubernetes objects of one cluster in, its identities out. Pure and
 * deterministic: the same objects (in any order) and the same `now` give the same output, sorted,
 * so storage can diff one ingestion against the next.
 *
 * prepareIdentities is the same computation split in two: the cluster's shared state (grants,
 * identities and their usage) is built once, and identities are computed when asked for, a part
 * at a time. A caller that writes a large cluster a part at a time holds one part's identities,
 * and one part's graph nodes and grant evaluations, not the cluster's (docs/performance.md,
 * "Fix 28" and "Fix 29").
 *
 * @example
 *   const { identities, warnings } = computeIdentities({
 *     clusterId, clusterName: 'prod', objects: [...serviceAccounts, ...roles, ...bindings, ...pods],
 *     now: new Date(),
 *   });
 *   const cluster = prepareIdentities(input);
 *   for (const part of batches(cluster.ids, 100)) write(cluster.compute(part));
 */
import { createGrantEvaluator, detectRisks, type GrantEvaluator, type RiskInstance } from './detection.js';
import { riskFingerprint, riskId } from './fingerprint.js';
import { createGraphBuilder, type GraphBuilder } from './graph.js';
import { collectIdentities, grantRefsOf, type IdentityDraft, isSystemIdentity } from './identities.js';
import { readInventory } from './objects.js';
import { compareStrings, round2, sortBy, sortedUnique } from './order.js';
import { buildGrants, createHandles, permissionsOf } from './permissions.js';
import { assignedRoles, rawRbacObjects } from './rbac-objects.js';
import { RULESET_VERSION } from './risk-rules.js';
import { scoreIdentity, severityOf } from './scoring.js';
import type { ComputedIdentity, ObjectHandle, Risk, WorkloadRef } from './types.js';
import { computeUsage } from './usage.js';

/** `source_type` of every identity the engine produces: its source is a Kubernetes cluster. */
export const SOURCE_TYPE = 'k8s_cluster';

export interface ComputeIdentitiesInput {
  clusterId: string;
  clusterName: string;
  /** Parsed Kubernetes JSON: objects, `List`s of them; unknown kinds are ignored. */
  objects: readonly unknown[];
  /** The time of the computation: when running pods last used their service account. */
  now: Date | string;
}

export interface ComputeIdentitiesResult {
  /** Sorted by type, namespace, name. */
  identities: ComputedIdentity[];
  /** Sorted notes on objects that were skipped or refer to missing objects. */
  warnings: string[];
}

const displayName = (handle: ObjectHandle): string =>
  handle.namespace === ''
    ? `${handle.kind}/${handle.name}`
    : `${handle.kind}/${handle.namespace}/${handle.name}`;

function toRisk(instance: RiskInstance, identityId: string): Risk {
  const { rule, scope } = instance;
  const resources = sortBy(instance.resources.entries(), ([handle]) => [displayName(handle), handle.key]);
  const fingerprint = riskFingerprint(
    identityId,
    rule.type,
    scope,
    resources.map(([handle]) => handle.key),
  );
  const where = scope === '' ? 'cluster-wide' : `namespace ${scope}`;
  return {
    id: riskId(fingerprint),
    identity_id: identityId,
    type: rule.type,
    name: rule.name,
    description: `${rule.description} Scope: ${where}.`,
    weight: rule.weight,
    score: round2(rule.weight * instance.factor),
    severity: severityOf(rule.weight * instance.factor),
    namespace: scope,
    associated_resources: resources.map(([handle, factor]) => ({
      id: handle.uid || handle.id,
      name: displayName(handle),
      severity: severityOf(rule.weight * factor),
    })),
    fingerprint,
    risk_counter: instance.grantCount,
  };
}

function originalId(identity: IdentityDraft): string {
  if (identity.kind !== 'ServiceAccount') return identity.name;
  // A service account named by a binding but not (yet) created has no uid: its user name stands in.
  return identity.serviceAccount?.meta.uid || `system:serviceaccount:${identity.namespace}:${identity.name}`;
}

function normalizeNow(now: Date | string): string {
  const time = now instanceof Date ? now.getTime() : Date.parse(now);
  if (Number.isNaN(time)) throw new RangeError(`computeIdentities: invalid now ${String(now)}`);
  return new Date(time).toISOString();
}

/** A cluster's identities, each computed when asked for. */
export interface PreparedIdentities {
  /** Every identity's id, sorted by type, namespace, name (computeIdentities' order). */
  ids: readonly string[];
  /**
   * The identities with these ids, computed now, in the order asked; an id the cluster has no
   * identity for is skipped. Identities computed in one call share their graph nodes and grant
   * evaluations; nothing is kept from one call to the next.
   */
  compute(ids: readonly string[]): ComputedIdentity[];
  /** Sorted notes on objects that were skipped or refer to missing objects. */
  warnings: string[];
}

export function computeIdentities(input: ComputeIdentitiesInput): ComputeIdentitiesResult {
  const prepared = prepareIdentities(input);
  return {
    identities: prepared.compute(prepared.ids),
    warnings: prepared.warnings,
  };
}

export function prepareIdentities(input: ComputeIdentitiesInput): PreparedIdentities {
  const { clusterId, clusterName } = input;
  const now = normalizeNow(input.now);
  const inventory = readInventory(input.objects);
  const warnings = [...inventory.warnings];
  const handles = createHandles(clusterId);
  const grants = buildGrants(inventory, handles, warnings);
  const drafts = collectIdentities(clusterId, inventory, grants, warnings);
  const usage = computeUsage(inventory, now);

  const draftsById = new Map([...drafts.values()].map((identity) => [identity.id, identity]));

  const computeOne = (
    identity: IdentityDraft,
    evaluateGrant: GrantEvaluator,
    graphOf: GraphBuilder,
  ): ComputedIdentity => {
    const refs = grantRefsOf(identity, drafts);
    const used =
      identity.kind === 'ServiceAccount' ? usage.get(`${identity.namespace}/${identity.name}`) : undefined;
    const workloads: WorkloadRef[] = used?.workloads ?? [];
    const instances = detectRisks(identity, refs, workloads.length, evaluateGrant, handles);
    const risks = instances
      .map((instance) => toRisk(instance, identity.id))
      .sort(
        (a, b) =>
          b.score - a.score ||
          compareStrings(a.type, b.type) ||
          compareStrings(a.namespace, b.namespace) ||
          compareStrings(a.fingerprint, b.fingerprint),
      );
    const score = scoreIdentity(
      instances.map((instance) => ({
        type: instance.rule.type,
        weight: instance.rule.weight,
        factor: instance.factor,
      })),
    );
    const permissions = permissionsOf(refs.map((ref) => ref.grant));
    const unusedWithGrants =
      identity.kind === 'ServiceAccount' && workloads.length === 0 && identity.direct.length > 0;
    return {
      id: identity.id,
      original_id: originalId(identity),
      name: identity.name,
      namespace: identity.namespace,
      type: identity.type,
      source_id: clusterId,
      source_name: clusterName,
      source_type: SOURCE_TYPE,
      actions: sortedUnique(permissions.flatMap((permission) => permission.verbs)),
      risks,
      ...score,
      risk_detectors: { rbac: { ruleset_version: RULESET_VERSION } },
      // Without audit logs, only these can be narrowed safely: a wildcard names more than anyone
      // needs, and an unused account needs nothing.
      rightsizeable: score.risk_types.includes('wildcard_permissions') || unusedWithGrants,
      rbac_objects: {
        assigned_roles: assignedRoles(refs, clusterId),
        permissions,
        graph: graphOf(identity, refs),
      },
      raw_rbac_objects: rawRbacObjects(refs),
      linked_resources: workloads.length,
      last_used_at: used?.lastUsedAt ?? null,
      facets: {
        usage: identity.kind !== 'ServiceAccount' ? 'unknown' : workloads.length > 0 ? 'used' : 'unused',
        resources: sortedUnique(permissions.flatMap((permission) => permission.resources)),
        linked_workloads: workloads,
        system: isSystemIdentity(identity),
        source_created_at: identity.serviceAccount?.meta.creationTimestamp ?? null,
      },
    };
  };
  return {
    ids: [...draftsById.keys()],
    compute: (ids) => {
      // Caches of this call only: kept for the whole cluster, they grew with every part computed
      // and were held until the last (docs/performance.md, "Fix 29").
      const evaluateGrant = createGrantEvaluator();
      const graphOf = createGraphBuilder();
      return ids.flatMap((id) => {
        const identity = draftsById.get(id);
        return identity === undefined ? [] : [computeOne(identity, evaluateGrant, graphOf)];
      });
    },
    warnings: warnings.sort(compareStrings),
  };
}
