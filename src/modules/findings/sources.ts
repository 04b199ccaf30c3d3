/**
 * What each evaluation reads: the stored facts of one cluster (or of some of its objects), in
 * the shapes the pure rules of src/engines/findings take. Every query is scoped by account and
 * cluster and reads derived, indexed rows; only the misconfiguration loader reads raw objects,
 * and only those of the objects a push changed.
 */
import type { Executor } from '../../db/database.js';
import {
  type EvaluatedWorkload,
  type IdentityFacts,
  type InsightFacts,
  isWorkloadKind,
  type RunningVulnerability,
  WORKLOAD_KINDS,
} from '../../engines/findings/index.js';
import { knownExploited } from '../vulnerabilities/known-exploited.js';

/** What loadWorkloads needs of a pushed object (src/ingest/kubernetes/object.ts). */
export interface WrittenWorkload {
  uid: string;
  kind: string;
  name: string;
  namespace: string;
  owner: { uid: string } | null;
  raw: Record<string, unknown>;
}

export interface ClusterScope {
  accountId: string;
  clusterId: string;
}

/**
 * The live latest versions of the given workload objects; deleted ones are simply absent. Those
 * in `written` (a push's new live versions, as parsed) are taken from memory: reading back and
 * parsing the JSON the push has just stored was a tenth of the rows a medium Kubernetes load read
 * with their JSON (docs/performance.md, "Fix 10").
 */
export async function loadWorkloads(
  db: Executor,
  scope: ClusterScope,
  uids: readonly string[],
  written: readonly WrittenWorkload[] = [],
): Promise<EvaluatedWorkload[]> {
  const wanted = new Set(uids);
  const inMemory: EvaluatedWorkload[] = written
    .filter((object) => wanted.has(object.uid) && isWorkloadKind(object.kind))
    .map((object) => ({
      uid: object.uid,
      kind: object.kind,
      name: object.name,
      namespace: object.namespace,
      ownerUid: object.owner?.uid ?? null,
      raw: object.raw,
    }));
  for (const object of inMemory) wanted.delete(object.uid);
  if (wanted.size === 0) return inMemory;
  const { rows } = await db.query<{
    uid: string;
    kind: string;
    name: string;
    namespace: string;
    owner_uid: string | null;
    raw: string;
  }>(
    `select uid, kind, name, namespace, owner_uid, raw from cluster_resources
      where account_id = $1 and cluster_id = $2 and uid = any($3::text[]) and is_latest
        and deleted_at is null and kind = any($4::text[])`,
    [scope.accountId, scope.clusterId, [...wanted], WORKLOAD_KINDS],
  );
  return [
    ...inMemory,
    ...rows.map((row) => ({
      uid: row.uid,
      kind: row.kind,
      name: row.name,
      namespace: row.namespace,
      ownerUid: row.owner_uid,
      raw: JSON.parse(row.raw) as Record<string, unknown>,
    })),
  ];
}

/** Open identities of the cluster at risk level High or Critical. */
export async function loadRiskyIdentities(db: Executor, scope: ClusterScope): Promise<IdentityFacts[]> {
  const { rows } = await db.query<{
    id: string;
    name: string;
    namespace: string;
    type: string;
    risk_level: string;
    risk_score: number;
    risk_types: string[];
    status: string;
  }>(
    `select id, name, namespace, type, risk_level, risk_score, risk_types, status from identities
      where account_id = $1 and cluster_id = $2 and deleted_at is null and status = 'open'
        and risk_level in ('High', 'Critical')`,
    [scope.accountId, scope.clusterId],
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    type: row.type,
    riskLevel: row.risk_level,
    riskScore: Number(row.risk_score),
    riskTypes: row.risk_types,
    status: row.status,
  }));
}

/**
 * Critical or known-exploited CVEs of the given images that live containers of the cluster run,
 * once per image whatever the number of workloads running it. "Runs" is the vulnerabilities
 * module's maintained image usage, vulnerability_image_workloads (matched by digest, config digest,
 * or repository + tag, and refreshed in the push's transaction before any evaluation), so it means
 * the same here as the CVE report's in_use. Every lookup of it here is a primary-key prefix: the
 * usage view it is maintained from joins the account's images to the cluster's containers, and
 * with the statistics of a bulk load a planner ran that join once per CVE row of the image.
 */
export async function loadRunningVulnerabilities(
  db: Executor,
  scope: ClusterScope,
  imageIds: readonly string[],
): Promise<RunningVulnerability[]> {
  return loadVulnerabilities(db, scope.accountId, imageIds, scope.clusterId);
}

/**
 * The same CVEs of images the caller knows to run in each cluster it evaluates (a scan push's
 * image, in the clusters of clustersRunningImage): one read serves all those clusters, as the
 * rows do not depend on the cluster.
 */
export async function loadImageVulnerabilities(
  db: Executor,
  accountId: string,
  imageIds: readonly string[],
): Promise<RunningVulnerability[]> {
  return loadVulnerabilities(db, accountId, imageIds);
}

async function loadVulnerabilities(
  db: Executor,
  accountId: string,
  imageIds: readonly string[],
  runningIn?: string,
): Promise<RunningVulnerability[]> {
  if (imageIds.length === 0) return [];
  const runs =
    runningIn === undefined
      ? ''
      : `and exists (select 1 from vulnerability_image_workloads u
                      where u.account_id = $1 and u.image_id = i.id and u.cluster_id = $3)`;
  const { rows } = await db.query<{
    image_id: string;
    image_repo: string;
    image_tag: string;
    image_digest: string;
    cve_name: string;
    package_name: string;
    package_version: string;
    severity: string;
    fixed_in_version: string;
    known_exploited: boolean;
  }>(
    `select i.id as image_id, i.image_repo, i.image_tag, i.image_digest, f.cve_name, p.name as package_name,
            p.version as package_version, f.severity, f.fixed_in_version, k.known_exploited
       from vulnerability_images i
       join vulnerability_findings f on f.account_id = $1 and f.image_id = i.id
       join vulnerability_packages p on p.account_id = $1 and p.id = f.package_id
       cross join lateral (
         select ${knownExploited('f.lookup_cves')} as known_exploited) k
      where i.account_id = $1 and i.id = any($2::uuid[]) ${runs}
        and (f.severity = 'critical' or k.known_exploited)`,
    runningIn === undefined ? [accountId, imageIds] : [accountId, imageIds, runningIn],
  );
  return rows.map((row) => ({
    imageId: row.image_id,
    imageRepo: row.image_repo,
    imageTag: row.image_tag,
    imageDigest: row.image_digest,
    cveName: row.cve_name,
    packageName: row.package_name,
    packageVersion: row.package_version,
    severity: row.severity,
    fixedInVersion: row.fixed_in_version,
    knownExploited: row.known_exploited,
  }));
}

/**
 * Of the given images, those whose vulnerability findings in the cluster may be out of step with
 * whether the image runs there: it runs but holds no live finding (its first container started,
 * or its findings predate the per-image shape), or it holds live findings but no longer runs (its
 * last container stopped). A Kubernetes push changes nothing else a vulnerability finding reads,
 * so an image that ran before and after the push, with its findings, needs no evaluation. An
 * image that runs without a critical or KEV CVE is listed at every such push and its evaluation
 * writes nothing: cheaper than repeating the rules' CVE conditions here.
 */
export async function imagesOutOfStep(
  db: Executor,
  scope: ClusterScope,
  imageIds: readonly string[],
): Promise<string[]> {
  if (imageIds.length === 0) return [];
  const { rows } = await db.query<{ image_id: string }>(
    `select t.image_id::text from unnest($3::uuid[]) as t (image_id)
      where exists (select 1 from vulnerability_image_workloads u
                     where u.account_id = $1 and u.image_id = t.image_id and u.cluster_id = $2)
         <> exists (select 1 from findings f
                     where f.account_id = $1 and f.cluster_id = $2 and f.family = 'vulnerability'
                       and f.source_key = t.image_id::text and f.deleted_at is null)`,
    [scope.accountId, scope.clusterId, imageIds],
  );
  return rows.map((row) => row.image_id);
}

/** Runtime insights of the cluster that drifted or were judged malicious. */
export async function loadAlertingInsights(db: Executor, scope: ClusterScope): Promise<InsightFacts[]> {
  const { rows } = await db.query<{
    id: string;
    workload_id: string;
    namespace: string;
    workload_kind: string;
    workload_name: string;
    container_name: string;
    container_id: string;
    severity: string;
    has_drift: boolean;
    malicious: boolean;
  }>(
    `select id, workload_id, namespace, workload_kind, workload_name, container_name, container_id, severity,
            has_drift, malicious
       from runtime_insights
      where account_id = $1 and cluster_id = $2 and (has_drift or malicious)`,
    [scope.accountId, scope.clusterId],
  );
  return rows.map((row) => ({
    insightId: row.id,
    workloadId: row.workload_id,
    namespace: row.namespace,
    workloadKind: row.workload_kind,
    workloadName: row.workload_name,
    containerName: row.container_name,
    containerId: row.container_id,
    severity: row.severity,
    hasDrift: row.has_drift,
    malicious: row.malicious,
  }));
}

/**
 * Every image a vulnerability evaluation of the whole cluster must cover: the images its live
 * containers run, and those that still hold live findings (their last container may be gone).
 */
export async function imagesOfCluster(db: Executor, scope: ClusterScope): Promise<string[]> {
  const { rows } = await db.query<{ image_id: string }>(
    `select image_id::text from vulnerability_image_workloads where account_id = $1 and cluster_id = $2
     union
     select source_key from findings
      where account_id = $1 and cluster_id = $2 and family = 'vulnerability' and deleted_at is null`,
    [scope.accountId, scope.clusterId],
  );
  return rows.map((row) => row.image_id);
}

/**
 * Where findings of some CVEs can be: every (account, cluster, image) whose running image has one
 * of them (by any alias). Crosses accounts: it serves the global KEV import, never a request.
 */
export async function imagesWithCves(
  db: Executor,
  cves: readonly string[],
): Promise<{ accountId: string; clusterId: string; imageId: string }[]> {
  const { rows } = await db.query<{ account_id: string; cluster_id: string; image_id: string }>(
    `select distinct u.account_id, u.cluster_id, u.image_id
       from vulnerability_findings f
       join vulnerability_image_workloads u on u.account_id = f.account_id and u.image_id = f.image_id
      where f.lookup_cves && $1::text[]
      order by u.account_id, u.cluster_id, u.image_id`,
    [cves],
  );
  return rows.map((row) => ({ accountId: row.account_id, clusterId: row.cluster_id, imageId: row.image_id }));
}

/** Clusters of the account where a scanned image runs: the ones a new scan of it can change. */
export async function clustersRunningImage(
  db: Executor,
  accountId: string,
  imageId: string,
): Promise<string[]> {
  const { rows } = await db.query<{ cluster_id: string }>(
    `select distinct cluster_id from vulnerability_image_workloads where account_id = $1 and image_id = $2`,
    [accountId, imageId],
  );
  return rows.map((row) => row.cluster_id);
}
