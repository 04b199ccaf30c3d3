/**
 * Applies one scan report to an account, inside the caller's transaction: the newest scan of an
 * image replaces the findings of the previous one, then the package and CVE rows both scans
 * touch are recomputed, their usage (affected workloads, clusters, owners) included. A scan older
 * than the stored one (by scan time) changes nothing.
 *
 * @example
 *   await db.transaction((tx) => storeScan(tx, { accountId, clusterId }, scanRows(accountId, report, now), now));
 */
import type { Executor } from '../../db/database.js';
import { refreshCveRows, refreshPackages } from './derived-store.js';
import type { ScanRows } from './scan-rows.js';
import * as store from './scan-store.js';
import { catchUpCveStatistics, catchUpStatistics } from './statistics.js';
import { refreshImageWorkloads } from './usage-store.js';

export type ScanOutcome = 'created' | 'replaced' | 'superseded';

export async function storeScan(
  tx: Executor,
  scope: store.ScanScope,
  rows: ScanRows,
  now: Date,
): Promise<ScanOutcome> {
  // The image's facts are its own: pushes of one image take turns, pushes of others write theirs
  // at the same time (docs/vulnerabilities-api.md, "Concurrent pushes").
  await store.lockImage(tx, scope.accountId, rows.image.imageKey);
  const stored = await store.findImage(tx, scope.accountId, rows.image.imageKey);
  if (stored && stored.scanned_at.getTime() > rows.image.scannedAt.getTime()) return 'superseded';

  const previous = stored
    ? await store.deleteFactsOfImage(tx, scope.accountId, stored.id)
    : { cveIds: [], packageIds: [] };
  await store.writeScanFacts(tx, scope, rows, now);
  // The derived rows are shared by the account's images: one push at a time from here, each
  // reading every fact committed before it took the lock, with its own. A push still waiting
  // here has written facts no one else sees yet; it reads the earlier pushes' once it has the
  // lock, so the last of two pushes sharing a CVE row aggregates both.
  await store.lockScans(tx, scope.accountId);
  // Before the statements that read the account's facts by key: during a first bulk load the
  // statistics would otherwise say the account is empty and every lookup scans all of it.
  const analyzed = await catchUpStatistics(tx, scope.accountId);
  // A new image, or one whose digest changed, may be run by other containers than before; the
  // CVE rows refreshed below are every row of the image, so they take its workloads along.
  await refreshImageWorkloads(tx, scope.accountId, [rows.image.id]);

  const current = new Set(rows.findings.map((finding) => finding.cveId));
  const dropped = previous.cveIds.filter((id) => !current.has(id));
  await refreshCveRows(tx, scope.accountId, {
    imageId: rows.image.id,
    current: [...current],
    maybeGone: dropped,
    packages: rows.packages,
    firstScan: !stored,
  });
  // The packages' counts read the CVE rows by package: planned from statistics that know the
  // account's rows, this push's included.
  if (analyzed) await catchUpCveStatistics(tx);
  await refreshPackages(tx, scope.accountId, rows.packages, previous.packageIds);
  return stored ? 'replaced' : 'created';
}
