/**
 * Keeps the CVE report's usage columns in step with Kubernetes ingestion: registered as a push
 * listener (src/services.ts), it rewrites the workloads of the scanned images whose containers the
 * push started, stopped or re-owned, then the CVE rows of the images whose workloads changed. The
 * cost follows the push (its containers' images and their CVE rows), never the whole account.
 */
import type { Executor } from '../../db/database.js';
import type { AppliedKubernetesPush } from '../clusters/ingest-service.js';
import { lockScans } from './scan-store.js';
import { imagesRunBy, refreshCveUsageOfImages, refreshImageWorkloads } from './usage-store.js';

export async function refreshCveUsageOnPush(tx: Executor, push: AppliedKubernetesPush): Promise<void> {
  const refs = push.containerImages;
  if (refs.digests.length === 0 && refs.repos.length === 0) return;
  // Held before matching: a scan storing a new image of these containers either commits before
  // (and is matched here) or waits and then reads this push's containers. The Kubernetes ingest
  // service already took it before its cluster lock (the lock order); taking it again is a no-op
  // there and keeps this listener correct for any other caller.
  await lockScans(tx, push.accountId);
  const imageIds = await imagesRunBy(tx, push.accountId, refs);
  const changed = await refreshImageWorkloads(tx, push.accountId, imageIds);
  await refreshCveUsageOfImages(tx, push.accountId, changed);
}
