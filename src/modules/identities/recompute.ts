/**
 * Recomputes the identities of one cluster from what is stored now, inside the caller's
 * transaction (the Kubernetes ingestion calls it after applying a push, so identities never lag
 * behind the objects they derive from). Two ways, one result:
 *
 * - recomputeClusterIdentities, the whole cluster: the first push of a cluster, and the reference
 *   the delta is tested against;
 * - recomputeFromDelta, what ingestion runs: only the identities the push can have changed
 *   (delta.ts), from only the objects they derive from (delta-sources.ts).
 *
 * Both then:
 * 1. load the live latest RBAC objects, ServiceAccounts, pods and workloads they need;
 * 2. prepare the engine (prepareIdentities) and refresh rbac_objects (#19-#22);
 * 3. a part of a hundred identities at a time: compute them, diff them against their stored
 *    rows and risks (planRecompute, reconcileIdentity) and write only what changed: new and
 *    changed identities whole, fresher timestamps for the rest, vanished identities and risks
 *    resolved (kept, never deleted). A part's writes and the next part's reads go to the
 *    database together, and run while the next part is computed;
 * 4. when an identity changed, refresh the cluster's filter values (#15) and the account's
 *    report (#18); the ingestion hook then has the identity findings evaluated
 *    (createIdentitiesPushListener).
 *
 * @example
 *   await db.transaction((tx) => recomputeClusterIdentities(tx, cluster, new Date()));
 */

import { catchUpAccountStatistics } from '../../db/account-statistics.js';
import { type Executor, queryAll, type Statement } from '../../db/database.js';
import {
  type ComputedIdentity,
  identityId,
  type PreparedIdentities,
  prepareIdentities,
} from '../../engines/rbac/index.js';
import { batches } from '../../ingest/batches.js';
import type { ChangedResource } from '../../ingest/kubernetes/resource-store.js';
import type { KubernetesPushListener } from '../clusters/ingest-service.js';
import { syncRbacObjects } from '../rbac/sync.js';
import { type PushDelta, readPushDelta } from './delta.js';
import { loadSourcesOf, parseIdentityKey } from './delta-sources.js';
import { refreshFilterValues, writeIdentitiesReport } from './derived-store.js';
import {
  facetStatements,
  fillStatements,
  type IdentityScope,
  loadLiveIdentityIds,
  removalStatements,
  storedIdentities,
  storedIdentitiesStatement,
  touchStatements,
  upsertStatements,
} from './identity-store.js';
import { type PlanContext, planRecompute, type RecomputePlan } from './plan.js';
import { possibleIdentities } from './possible.js';
import { riskStatements, storedRisks, storedRisksStatement } from './risk-store.js';
import { isLinked, rebuildLinks, replaceLinks } from './source-links.js';
import type { KnownObjects, PushedVersions, SourceScope } from './source-queries.js';
import {
  type ClusterScope,
  findTenantOfAccount,
  IDENTITY_SOURCE_KINDS,
  loadSourceObjects,
  RBAC_KINDS,
  type SourceObject,
} from './sources.js';

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

/**
 * Whether a recompute rewrote or removed an identity row: what the identities' filter values,
 * their report and the identity findings read changes with nothing else (a pod restart alone
 * moves timestamps, not posture).
 */
export const changedIdentities = (summary: RecomputeSummary | null): boolean =>
  summary !== null && (summary.identitiesWritten > 0 || summary.identitiesRemoved > 0);

/** The reads a part is planned from: its identities' stored rows, then their stored risks. */
const readStatements = (scope: IdentityScope, identityIds: readonly string[]): Statement[] => [
  storedIdentitiesStatement(scope, identityIds),
  storedRisksStatement(scope, identityIds),
];

/**
 * What a part's plan writes, in this order. Stored identities outside `identityIds` are left
 * alone; those inside it that were not computed are resolved (the plan says how).
 */
const writeStatements = (
  scope: IdentityScope,
  now: string,
  plan: RecomputePlan,
  identityIds: readonly string[],
): Statement[] => [
  ...upsertStatements(scope, plan.upserts),
  ...facetStatements(scope, plan.upserts),
  ...touchStatements(scope, plan.touches),
  ...fillStatements(scope, plan.fills),
  ...removalStatements(scope, plan.removals),
  ...riskStatements(scope, plan, now, identityIds),
];

const summaryOf = (computed: readonly ComputedIdentity[], plan: RecomputePlan): RecomputeSummary => ({
  identities: computed.length,
  risks: computed.reduce((sum, identity) => sum + identity.risks.length, 0),
  identitiesWritten: plan.upserts.length,
  identitiesRemoved: plan.removals.length,
  risksWritten: plan.riskUpserts.length,
  risksResolved: plan.riskResolutions.length,
});

/**
 * Identities computed, planned and written per part of a recompute. A part holds its computed
 * identities, their stored rows and the API texts of the rewritten ones until written; a large
 * cluster's held at once were over 100 MB of heap (docs/performance.md, "Fix 27" and "Fix 28").
 * A part lives across round trips to the database (its reads, then its writes while the next
 * part is computed), long enough for the young generation to promote what it holds to the old
 * one, where it waits for a full collection: with parts of 500, a large cluster's binding pushes
 * peaked 30 MiB higher than with parts of 100, for the same CPU ("Fix 29").
 */
const PART_SIZE = 100;

/**
 * Computes identities, diffs them against the stored ones and writes what changed, a part at a
 * time. `identityIds`: the identities recomputed (the delta); stored identities outside it are
 * left alone. Without it, the whole cluster is: every live stored identity it does not compute is
 * resolved.
 */
async function writeComputed(
  db: Executor,
  cluster: RecomputeCluster,
  prepared: PreparedIdentities,
  sources: readonly SourceObject[],
  at: Date,
  identityIds?: readonly string[],
): Promise<RecomputeSummary> {
  const scope: IdentityScope = {
    accountId: cluster.accountId,
    clusterId: cluster.clusterId,
    tenantId: await findTenantOfAccount(db, cluster.accountId),
  };
  const planContext: PlanContext = {
    accountId: cluster.accountId,
    tenantId: scope.tenantId,
    now: at.toISOString(),
    updatedAt: new Map(
      sources
        .filter((source) => (RBAC_KINDS as readonly string[]).includes(source.kind))
        .map((source) => [source.uid, source.ingestedAt.toISOString()]),
    ),
  };
  // The delta names its identities; a whole-cluster recompute also resolves every live stored
  // identity it does not compute.
  const ids = identityIds ?? [...new Set([...prepared.ids, ...(await loadLiveIdentityIds(db, cluster))])];
  const parts = [...batches(ids, PART_SIZE)];
  const summaries: RecomputeSummary[] = [];
  // A part's writes travel with the next part's reads, in one round trip, and the database runs
  // them while this process computes that next part: a push's recompute no longer waits on one
  // for the other (docs/performance.md, "Fix 69"). Only the last two results are reads.
  let inFlight = queryAll(db, parts.length > 0 ? readStatements(scope, parts[0]!) : []);
  for (const [index, part] of parts.entries()) {
    // Handled here so that a throw below cannot leave its rejection unhandled; awaited next.
    inFlight.catch(() => undefined);
    const computed = prepared.compute(part);
    const results = await inFlight;
    const [identities, risks] = results.slice(-2);
    const plan = planRecompute(computed, storedIdentities(identities!), storedRisks(risks!), planContext);
    summaries.push(summaryOf(computed, plan));
    const next = parts[index + 1];
    inFlight = queryAll(db, [
      ...writeStatements(scope, planContext.now, plan, part),
      ...(next === undefined ? [] : readStatements(scope, next)),
    ]);
  }
  await inFlight;
  const total = (field: keyof RecomputeSummary) => summaries.reduce((sum, part) => sum + part[field], 0);
  const summary: RecomputeSummary = {
    identities: total('identities'),
    risks: total('risks'),
    identitiesWritten: total('identitiesWritten'),
    identitiesRemoved: total('identitiesRemoved'),
    risksWritten: total('risksWritten'),
    risksResolved: total('risksResolved'),
  };
  if (changedIdentities(summary)) {
    // Before the refresh: its probes of the facets and identities are planned from them (Fix 9).
    await catchUpAccountStatistics(db, 'identities', cluster.accountId);
    await refreshFilterValues(db, cluster, cluster.clusterName);
    await writeIdentitiesReport(db, cluster, at);
  }
  return summary;
}

const prepare = (cluster: RecomputeCluster, sources: readonly SourceObject[], at: Date) =>
  prepareIdentities({
    clusterId: cluster.clusterId,
    clusterName: cluster.clusterName,
    objects: sources.map((source) => source.raw),
    now: at,
  });

/** Every identity of the cluster from every live source object; rewrites the cluster's links. */
export async function recomputeClusterIdentities(
  db: Executor,
  cluster: RecomputeCluster,
  /** the ingestion time: running pods use their accounts now; detections, resolutions, report hour */
  at: Date,
  /** rbac_objects derive from RBAC objects only: a push of pods alone need not refresh them */
  options: { rbacChanged?: boolean } = {},
): Promise<RecomputeSummary> {
  const scope = { accountId: cluster.accountId, clusterId: cluster.clusterId };
  const sources = await loadSourceObjects(db, scope);
  const prepared = prepare(cluster, sources, at);
  if (options.rbacChanged ?? true) await syncRbacObjects(db, scope, sources);
  await rebuildLinks(db, scope, sources, at);
  return writeComputed(db, cluster, prepared, sources, at);
}

/**
 * The links and rbac_objects rows of the objects a push changed (and of their namesakes). The
 * delta keeps both tables in line with the live objects after every push (the property test in
 * test/identities/delta-recompute.test.ts compares them with a full recompute's), so these are
 * all a push needs to write to them.
 */
async function writeDeltaRows(db: Executor, scope: SourceScope, delta: PushDelta) {
  await replaceLinks(db, scope, delta.linkedUids, delta.links);
  if (delta.rbacUids.length > 0) await syncRbacObjects(db, scope, delta.rbacObjects, delta.rbacUids);
}

const NOTHING_COMPUTED: RecomputeSummary = {
  identities: 0,
  risks: 0,
  identitiesWritten: 0,
  identitiesRemoved: 0,
  risksWritten: 0,
  risksResolved: 0,
};

/**
 * A change reaching most of a cluster (a ClusterRole bound everywhere) is cheaper to recompute
 * with one read of the cluster than with lookups per identity; below this many identities the
 * lookups always win, and the count is not even made.
 */
const SMALL_DELTA = 100;
const WHOLE_CLUSTER_SHARE = 0.5;

async function mostOfCluster(db: Executor, scope: ClusterScope, identities: number): Promise<boolean> {
  if (identities < SMALL_DELTA) return false;
  const { rows } = await db.query<{ n: number | string }>(
    'select count(*) as n from identities where account_id = $1 and cluster_id = $2 and deleted_at is null',
    [scope.accountId, scope.clusterId],
  );
  return identities > WHOLE_CLUSTER_SHARE * Number(rows[0]?.n ?? 0);
}

/**
 * The identities a push changed, recomputed from the objects they need; null when the push
 * changed nothing they derive from (nothing is read beyond the changed objects' links, nothing
 * written). A cluster whose links predate migration 0013, or a change that reaches every service
 * account or most identities, is recomputed whole.
 */
export async function recomputeFromDelta(
  db: Executor,
  cluster: RecomputeCluster,
  changed: readonly ChangedResource[],
  at: Date,
  /** the push's new versions, as parsed: their JSON is not read back (source-queries.ts) */
  known?: KnownObjects,
  /** the same versions' rows, which are not read back either */
  pushed?: PushedVersions,
): Promise<RecomputeSummary | null> {
  if (!touchesIdentities(changed)) return null;
  const scope: SourceScope = { accountId: cluster.accountId, clusterId: cluster.clusterId, known, pushed };
  if (!(await isLinked(db, scope))) return recomputeClusterIdentities(db, cluster, at);
  const delta = await readPushDelta(db, scope, changed);
  if (delta === null) return null;
  await writeDeltaRows(db, scope, delta);
  if (delta.whole || (await mostOfCluster(db, scope, delta.identities.size))) {
    // Every identity from every source, but not every link and rbac_objects row: deriving those
    // again from every object of the cluster found the ones just written (docs/performance.md,
    // "Fix 17e").
    const sources = await loadSourceObjects(db, scope);
    return writeComputed(db, cluster, prepare(cluster, sources, at), sources, at);
  }
  // After the links are written: an identity that a binding of this push names is possible.
  const reached = await possibleIdentities(db, scope, delta.identities);
  if (reached.size === 0) return NOTHING_COMPUTED;
  const sources = await loadSourcesOf(db, scope, reached);
  const ids = [
    ...new Set(
      [...reached].map((key) => {
        const { kind, namespace, name } = parseIdentityKey(key);
        return identityId(cluster.clusterId, kind, namespace, name);
      }),
    ),
  ];
  // Only the reached identities are computed: the sources also make identities the push did not
  // change (the other subjects of a reached binding), which are left as stored.
  return writeComputed(db, cluster, prepare(cluster, sources, at), sources, at, ids);
}

/**
 * Told, inside a push's transaction and under the account's scan lock, that the push's recompute
 * rewrote or removed identities of its cluster (the identity findings: findings/evaluator.ts).
 */
export type IdentitiesChangedListener = (
  tx: Executor,
  cluster: { accountId: string; clusterId: string },
  at: Date,
) => Promise<void>;

/**
 * The ingestion hook (registered in services.ts): recomputes the identities the push changed (a
 * push of Services or ConfigMaps alone, or one that changed nothing they read, changes none),
 * then tells `onChanged` when an identity row was rewritten or removed. A pod's new version that
 * changes nothing identities read tells nobody: before, every such push evaluated the cluster's
 * identity findings again, which only moved their groups' `last_seen` (docs/performance.md,
 * "Fix 65").
 */
export function createIdentitiesPushListener(
  onChanged: readonly IdentitiesChangedListener[] = [],
): KubernetesPushListener {
  return async (tx, push) => {
    const known: KnownObjects = new Map(push.written.map((object) => [object.id, object.raw]));
    const pushed = { at: push.now, byUid: new Map(push.written.map((object) => [object.uid, object])) };
    const summary = await recomputeFromDelta(tx, push, push.changed, push.now, known, pushed);
    if (!changedIdentities(summary)) return;
    for (const listener of onChanged) await listener(tx, push, push.now);
  };
}
