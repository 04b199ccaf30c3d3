/**
 * When findings are evaluated, and over what: the ingestion hooks. Each one evaluates only what
 * its push can have changed (docs/findings.md, "When findings are evaluated"):
 *
 * - Kubernetes push: misconfigurations of the workload objects whose latest version changed
 *   (never the whole cluster), before the account's scan lock (onClusterPush); under it
 *   (onKubernetesPush), the vulnerabilities of the scanned images, among those whose containers
 *   the push started, stopped or re-owned, that started or stopped running in the cluster; and
 *   the cluster's identity findings when the push's identities recompute rewrote or removed an
 *   identity (onIdentitiesChanged, which the recompute calls).
 * - Scan push: the scanned image's vulnerability findings, in the clusters where it runs.
 * - Runtime push: runtime findings of the pushed cluster.
 * - KEV import: the images, in every account, holding a CVE that entered or left the catalog.
 *
 * @example
 *   const findings = createFindingsEvaluator({ listeners: [recordOutbox] });
 *   createKubernetesIngestService({
 *     db, clusters, clusterListeners: [findings.onClusterPush],
 *     listeners: [createIdentitiesPushListener([findings.onIdentitiesChanged]), findings.onKubernetesPush],
 *   });
 */

import { catchUpAccountStatistics } from '../../db/account-statistics.js';
import type { Executor } from '../../db/database.js';
import {
  type FindingDraft,
  type FindingFamily,
  identityFindings,
  isWorkloadKind,
  runtimeFindings,
  vulnerabilityFindings,
  workloadFindings,
} from '../../engines/findings/index.js';
import type { ClusterPushListener, KubernetesPushListener } from '../clusters/ingest-service.js';
import type { IdentitiesChangedListener } from '../identities/recompute.js';
import type { KevChangeListener } from '../vulnerabilities/feed-service.js';
import { applyEvaluation, type EvaluationSummary } from './evaluate.js';
import type { FindingGroupsOpenedListener } from './events.js';
import * as sources from './sources.js';
import { findTenantId } from './store.js';

export interface EvaluatedCluster {
  accountId: string;
  clusterId: string;
}

export interface ScanPushed {
  accountId: string;
  imageId: string;
  now: Date;
}

export interface RuntimePushed {
  accountId: string;
  clusterId: string;
  now: Date;
}

export function createFindingsEvaluator({
  listeners = [],
}: {
  listeners?: readonly FindingGroupsOpenedListener[];
} = {}) {
  async function apply(
    tx: Executor,
    cluster: EvaluatedCluster,
    family: FindingFamily,
    sourceKeys: readonly string[],
    drafts: FindingDraft[],
    at: Date,
    tenantId?: string,
  ): Promise<EvaluationSummary> {
    const context = { tenantId: tenantId ?? (await findTenantId(tx, cluster.accountId)), at, listeners };
    return applyEvaluation(tx, { ...cluster, family, sourceKeys }, drafts, context);
  }

  const evaluator = {
    /** Misconfigurations of some workload objects (uids of any kind; deleted ones lose theirs). */
    async evaluateObjects(
      tx: Executor,
      cluster: EvaluatedCluster,
      uids: readonly string[],
      at: Date,
      written: readonly sources.WrittenWorkload[] = [],
    ) {
      const objects = await sources.loadWorkloads(tx, cluster, uids, written);
      return apply(tx, cluster, 'misconfiguration', uids, workloadFindings(cluster.clusterId, objects), at);
    },

    async evaluateIdentities(tx: Executor, cluster: EvaluatedCluster, at: Date) {
      const identities = await sources.loadRiskyIdentities(tx, cluster);
      const drafts = identityFindings(cluster.clusterId, identities);
      return apply(tx, cluster, 'identity', [cluster.clusterId], drafts, at);
    },

    /**
     * Vulnerability findings of some images in the cluster (all of them when `imageIds` is not
     * given): each finding is owned by its image, so only those images' findings are compared.
     */
    async evaluateVulnerabilities(
      tx: Executor,
      cluster: EvaluatedCluster,
      at: Date,
      imageIds?: readonly string[],
    ) {
      const images = imageIds ?? (await sources.imagesOfCluster(tx, cluster));
      const rows = await sources.loadRunningVulnerabilities(tx, cluster, images);
      const drafts = vulnerabilityFindings(cluster.clusterId, rows);
      return apply(tx, cluster, 'vulnerability', images, drafts, at);
    },

    async evaluateRuntime(tx: Executor, cluster: EvaluatedCluster, at: Date) {
      const insights = await sources.loadAlertingInsights(tx, cluster);
      return apply(
        tx,
        cluster,
        'runtime',
        [cluster.clusterId],
        runtimeFindings(cluster.clusterId, insights),
        at,
      );
    },

    /**
     * The Kubernetes ingestion hook run under the cluster's lock alone (ClusterPushListener): the
     * misconfigurations of the push's workload objects, which are the cluster's own findings.
     */
    onClusterPush: (async (tx, push) => {
      const cluster = { accountId: push.accountId, clusterId: push.clusterId };
      const workloads = push.changed
        .filter((change) => isWorkloadKind(change.kind))
        .map((change) => change.uid);
      if (workloads.length > 0)
        await evaluator.evaluateObjects(tx, cluster, [...new Set(workloads)], push.now, push.written);
    }) satisfies ClusterPushListener,

    /**
     * The Kubernetes ingestion hook run under the account's scan lock, after the identities
     * recompute: the scanned images' vulnerabilities.
     */
    onKubernetesPush: (async (tx, push) => {
      const cluster = { accountId: push.accountId, clusterId: push.clusterId };
      // Here, under the scan lock and after the identities' catch-up (db/account-statistics.ts),
      // for this push's evaluations and the next pushes' misconfigurations alike.
      await catchUpAccountStatistics(tx, 'findings', push.accountId);
      // Vulnerability findings are per image in the cluster and hold while it runs there: of the
      // scanned images whose containers the push started, stopped or re-owned, only one that
      // started or stopped running can gain or lose a finding. Another workload on an image
      // already running changes nothing and is not evaluated at all.
      const flipped = await sources.imagesOutOfStep(tx, cluster, push.scannedImageIds);
      if (flipped.length > 0) await evaluator.evaluateVulnerabilities(tx, cluster, push.now, flipped);
    }) satisfies KubernetesPushListener,

    /**
     * The identities recompute's hook (createIdentitiesPushListener), under the account's scan
     * lock: the cluster's identity findings, when the push rewrote or removed an identity. They
     * read nothing else, so a push that changed no identity evaluates nothing and writes nothing.
     */
    onIdentitiesChanged: (async (tx, cluster, at) => {
      // After the identities' catch-up, which the recompute ran (db/account-statistics.ts).
      await catchUpAccountStatistics(tx, 'findings', cluster.accountId);
      await evaluator.evaluateIdentities(tx, cluster, at);
    }) satisfies IdentitiesChangedListener,

    /**
     * The scan ingestion hook: a new scan of an image changes the findings where it runs. The
     * image's CVEs, and the account's tenant, are the same in every cluster running it, so they
     * are read once (each read is a round trip of the push's serial chain).
     */
    async onScanPush(tx: Executor, scan: ScanPushed): Promise<void> {
      const clusters = await sources.clustersRunningImage(tx, scan.accountId, scan.imageId);
      if (clusters.length === 0) return;
      // Under the scan lock, after the scan tables' catch-up (vulnerabilities/statistics.ts).
      await catchUpAccountStatistics(tx, 'findings', scan.accountId);
      const images = [scan.imageId];
      const rows = await sources.loadImageVulnerabilities(tx, scan.accountId, images);
      const tenantId = await findTenantId(tx, scan.accountId);
      for (const clusterId of clusters) {
        const drafts = vulnerabilityFindings(clusterId, rows);
        const cluster = { accountId: scan.accountId, clusterId };
        await apply(tx, cluster, 'vulnerability', images, drafts, scan.now, tenantId);
      }
    },

    /** The KEV import hook: a CVE entering or leaving the catalog moves between VULN-002 and VULN-001. */
    onKevChange: (async (tx, changedCves, at) => {
      const byCluster = new Map<string, { cluster: EvaluatedCluster; images: string[] }>();
      for (const { accountId, clusterId, imageId } of await sources.imagesWithCves(tx, changedCves)) {
        const key = `${accountId}/${clusterId}`;
        const entry = byCluster.get(key) ?? { cluster: { accountId, clusterId }, images: [] };
        entry.images.push(imageId);
        byCluster.set(key, entry);
      }
      for (const { cluster, images } of byCluster.values()) {
        await evaluator.evaluateVulnerabilities(tx, cluster, at, images);
      }
    }) satisfies KevChangeListener,

    /** The runtime ingestion hook. */
    async onRuntimePush(tx: Executor, push: RuntimePushed): Promise<void> {
      await evaluator.evaluateRuntime(tx, { accountId: push.accountId, clusterId: push.clusterId }, push.now);
    },
  };
  return evaluator;
}

export type FindingsEvaluator = ReturnType<typeof createFindingsEvaluator>;
