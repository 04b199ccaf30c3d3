/**
 * Recomputes the identities of one cluster from what is stored now, inside the caller's
 * transaction (the Kubernetes ingestion calls it after applying a push, so identities never lag
 * behind the objects they derive from):
 *
 * 1. load the live latest RBAC objects, ServiceAccounts, pods and workloads of the cluster;
 * 2. run the engine (computeIdentities) and refresh rbac_objects (#19-#22);
 * 3. diff against the stored identities and risks (planRecompute, reconcileIdentity) and write
 *    only what changed: new and changed identities whole, fresher timestamps for the rest,
 *    vanished identities and risks resolved (kept, never deleted);
 * 4. when an identity changed, refresh the cluster's filter values (#15) and the account's
 *    report (#18).
 *
 * @example
 *   await db.transaction((tx) => recomputeClusterIdentities(tx, cluster, new Date()));
 */
import type { Executor } from '../../db/database.js';
import { computeIdentities } from '../../engines/rbac/index.js';
import type { KubernetesPushListener } from '../clusters/ingest-service.js';
import { syncRbacObjects } from '../rbac/sync.js';
import { refreshFilterValues, writeIdentitiesReport } from './derived-store.js';
import {
  loadStoredIdentities,
  removeIdentities,
  replaceFacets,
  touchIdentities,
  upsertIdentities,
} from './identity-store.js';
import { planRecompute } from './plan.js';
import { loadStoredRisks, writeRisks } from './risk-store.js';
import { findTenantOfAccount, IDENTITY_SOURCE_KINDS, loadSourceObjects, RBAC_KINDS } from './sources.js';

export interface RecomputeCluster {
  accountId: string;
  clusterId: string;
  clusterName: string;
}

export interface RecomputeSummary {
  identities: number;
  risks: number;
  identitiesWritten: number;
  identitiesRemoved: number;
  risksWritten: number;
  risksResolved: number;
}

/** Whether a push can change identities: it holds an RBAC object, ServiceAccount, pod or workload. */
export const touchesIdentities = (objects: readonly { kind: string }[]): boolean =>
  objects.some((object) => IDENTITY_SOURCE_KINDS.has(object.kind));

export async function recomputeClusterIdentities(
  db: Executor,
  cluster: RecomputeCluster,
  /** the ingestion time: running pods use their accounts now; detections, resolutions, report hour */
  at: Date,
  /** rbac_objects derive from RBAC objects only: a push of pods alone need not refresh them */
  options: { rbacChanged?: boolean } = {},
): Promise<RecomputeSummary> {
  const scope = { accountId: cluster.accountId, clusterId: cluster.clusterId };
  const tenantId = await findTenantOfAccount(db, cluster.accountId);
  const sources = await loadSourceObjects(db, scope);
  const { identities } = computeIdentities({
    clusterId: cluster.clusterId,
    clusterName: cluster.clusterName,
    objects: sources.map((source) => source.raw),
    now: at,
  });
  if (options.rbacChanged ?? true) await syncRbacObjects(db, scope, sources);

  const now = at.toISOString();
  const updatedAt = new Map(
    sources
      .filter((source) => (RBAC_KINDS as readonly string[]).includes(source.kind))
      .map((source) => [source.uid, source.ingestedAt.toISOString()]),
  );
  const plan = planRecompute(
    identities,
    await loadStoredIdentities(db, scope),
    await loadStoredRisks(db, scope),
    { accountId: cluster.accountId, tenantId, now, updatedAt },
  );
  const identityScope = { ...scope, tenantId };
  await upsertIdentities(db, identityScope, plan.upserts);
  await replaceFacets(db, scope, plan.upserts);
  await touchIdentities(db, identityScope, plan.touches);
  await removeIdentities(db, identityScope, plan.removals);
  await writeRisks(db, scope, plan, now);
  // Filter values and the report read identity rows and open risks, which only change with
  // rewritten or removed identities (a pod restart alone moves timestamps, not posture).
  if (plan.upserts.length > 0 || plan.removals.length > 0) {
    await refreshFilterValues(db, scope, cluster.clusterName);
    await writeIdentitiesReport(db, cluster.accountId, at);
  }

  return {
    identities: identities.length,
    risks: identities.reduce((sum, identity) => sum + identity.risks.length, 0),
    identitiesWritten: plan.upserts.length,
    identitiesRemoved: plan.removals.length,
    risksWritten: plan.riskUpserts.length,
    risksResolved: plan.riskResolutions.length,
  };
}

/**
 * The ingestion hook (registered in services.ts): recomputes when the push changed the latest
 * version of a kind identities derive from (a push of Services or ConfigMaps alone, or one that
 * changed nothing, changes no identity).
 */
export const recomputeIdentitiesOnPush: KubernetesPushListener = async (tx, push) => {
  if (!touchesIdentities(push.changed)) return;
  const rbacChanged = push.changed.some((change) => (RBAC_KINDS as readonly string[]).includes(change.kind));
  await recomputeClusterIdentities(tx, push, push.now, { rbacChanged });
};
