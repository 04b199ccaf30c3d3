/**
 * Once after the upgrade that moved vulnerability findings from workloads to images (migration
 * 0014, docs/findings.md "When findings are evaluated"): the migration retired the per-workload
 * rows in SQL only, and this evaluates every image that runs in a cluster, so that its per-image
 * groups are there at once rather than at its next scan or container change. It runs in the
 * process (server or CLI) whose start applied the migration, never again.
 *
 * @example
 *   const { db, applied } = await openMigratedDatabase(config, log);
 *   await withSystemScope(() => evaluateImagesAfterUpgrade(db, applied));
 */
import type { Database } from '../../db/database.js';
import { lockCluster } from '../../ingest/kubernetes/resource-store.js';
import { enqueueFindingGroupDeliveries } from '../integrations/finding-listener.js';
import { lockScans } from '../vulnerabilities/scan-store.js';
import { createFindingsEvaluator } from './evaluator.js';

export const PER_IMAGE_MIGRATION = '0014-image-vulnerability-findings';

/** Returns the number of clusters evaluated (0 when `applied` does not hold the migration). */
export async function evaluateImagesAfterUpgrade(db: Database, applied: readonly string[]): Promise<number> {
  if (!applied.includes(PER_IMAGE_MIGRATION)) return 0;
  // As the ingestions do: groups this opens are queued for the integrations.
  const findings = createFindingsEvaluator({ listeners: [enqueueFindingGroupDeliveries] });
  const { rows } = await db.query<{ account_id: string; cluster_id: string }>(
    `select distinct account_id, cluster_id from vulnerability_image_workloads order by account_id, cluster_id`,
  );
  for (const row of rows) {
    const cluster = { accountId: row.account_id, clusterId: row.cluster_id };
    // One transaction per cluster, under the locks of a Kubernetes push, in its order (cluster,
    // then scans), so a push or scan arriving meanwhile waits rather than evaluating the same images.
    await db.transaction(async (tx) => {
      await lockCluster(tx, cluster);
      await lockScans(tx, cluster.accountId);
      await findings.evaluateVulnerabilities(tx, cluster, new Date());
    });
  }
  return rows.length;
}
