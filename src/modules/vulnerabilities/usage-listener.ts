/**
 * Keeps the CVE report's usage columns in step with Kubernetes ingestion: registered as a push
 * listener (src/services.ts), it rewrites the workloads of the scanned images whose containers the
 * push started, stopped or re-owned, then the CVE rows of the images whose workloads changed. The
 * cost follows the push (its containers' images and their CVE rows), never the whole account.
 */
import type { Executor } from '../../db/database.js';
import type { AppliedKubernetesPush } from '../clusters/ingest-service.js';
import { lockScans } from './scan-store.js';
import { refreshCveUsageOfImages, refreshImageWorkloads } from './usage-store.js';

export async function refreshCveUsageOnPush(tx: Executor, push: AppliedKubernetesPush): Promise<void> {
  if (push.scannedImageIds.length === 0) return;
  // The Kubernetes ingest service matched the images under this lock, taken after its cluster
  // lock (the lock order, docs/vulnerabilities-api.md); taking it again is a no-op there and keeps
  // the rewrite below under it for any other caller.
  await lockScans(tx, push.accountId);
  const changed = await refreshImageWorkloads(tx, push.accountId, push.scannedImageIds);
  await refreshCveUsageOfImages(tx, push.accountId, changed);
}
