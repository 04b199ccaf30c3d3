/**
 * SQL of the scan facts: the image row, the packages it holds and its findings. Writes are
 * multi-row statements over `unnest` arrays, one per batch of rows (src/ingest/batches.ts), the
 * first batches joined to the image's upsert (writeScanFacts). Every statement names the account.
 * The caller holds the image's lock (lockImage); the account's scan lock (lockScans) is for the
 * rows derived from the facts of every image.
 */
import { arrayLiteral } from '../../db/array-literal.js';
import type { Executor } from '../../db/database.js';
import { batches } from '../../ingest/batches.js';
import type { FindingRow, ImageRow, PackageRow } from './scan-rows.js';

export interface ScanScope {
  accountId: string;
  clusterId: string;
}

export interface StoredImage {
  id: string;
  scanned_at: Date;
}

/**
 * Serialises the derived half of scan ingestion per account: the package and CVE rows are shared
 * by every image of the account, so two scans recomputing them at once would each miss the
 * other's facts. A scan push takes it once its image's own facts are written (storeScan).
 * Kubernetes pushes take it too, after their cluster lock and their cluster's own rows
 * (clusters/ingest-service.ts), as they recompute the CVE rows' usage (usage-listener.ts) and the
 * findings of the images they start or stop. Reads are not blocked.
 */
export async function lockScans(tx: Executor, accountId: string) {
  await tx.query(`select pg_advisory_xact_lock(hashtextextended('posture.vulnerability-scans.' || $1, 0))`, [
    accountId,
  ]);
}

/**
 * Serialises the pushes of one image of an account, from the reading of its stored scan to the
 * commit: its facts (the image row, its package links and findings) are keyed by the image, so
 * pushes of other images write theirs at the same time, and queue only for the account's scan
 * lock, which the derived rows need (storeScan). Two images whose keys hash alike would merely
 * take turns.
 */
export async function lockImage(tx: Executor, accountId: string, imageKey: string) {
  await tx.query(
    `select pg_advisory_xact_lock(hashtextextended('posture.vulnerability-image.' || $1 || '.' || $2, 0))`,
    [accountId, imageKey],
  );
}

export async function findImage(tx: Executor, accountId: string, imageKey: string) {
  const { rows } = await tx.query<StoredImage>(
    'select id, scanned_at from vulnerability_images where account_id = $1 and image_key = $2',
    [accountId, imageKey],
  );
  return rows[0];
}

/** Removes the facts of an image's previous scan; returns the derived rows they counted towards. */
export async function deleteFactsOfImage(tx: Executor, accountId: string, imageId: string) {
  const findings = await tx.query<{ cve_id: string }>(
    'delete from vulnerability_findings where account_id = $1 and image_id = $2 returning cve_id',
    [accountId, imageId],
  );
  const packages = await tx.query<{ package_id: string }>(
    'delete from vulnerability_image_packages where account_id = $1 and image_id = $2 returning package_id',
    [accountId, imageId],
  );
  return {
    cveIds: findings.rows.map((row) => row.cve_id),
    packageIds: packages.rows.map((row) => row.package_id),
  };
}

/**
 * The image row: `$1` the account, `$2` to `$17` its values (imageParams). On a rescan the row
 * keeps its id and first scan time.
 */
const UPSERT_IMAGE = `insert into vulnerability_images (account_id, id, image_key, image_repo, image_name, image_tag,
       image_digest, config_digest, image_reference, cluster_id, scan_format, scanner_name, scanner_version,
       scanned_at, first_scanned_at, ingested_at, packages_count, vulnerabilities_count)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15, $16, $17)
     on conflict (account_id, image_key) do update set
       image_repo = excluded.image_repo, image_name = excluded.image_name, image_tag = excluded.image_tag,
       config_digest = excluded.config_digest, image_reference = excluded.image_reference,
       cluster_id = excluded.cluster_id, scan_format = excluded.scan_format,
       scanner_name = excluded.scanner_name, scanner_version = excluded.scanner_version,
       scanned_at = excluded.scanned_at, ingested_at = excluded.ingested_at,
       packages_count = excluded.packages_count, vulnerabilities_count = excluded.vulnerabilities_count`;

function imageParams(scope: ScanScope, image: ImageRow, counts: ScanCounts, now: Date): unknown[] {
  return [
    scope.accountId,
    image.id,
    image.imageKey,
    image.imageRepo,
    image.imageName,
    image.imageTag,
    image.imageDigest,
    image.configDigest,
    image.imageReference,
    scope.clusterId,
    image.scanFormat,
    image.scannerName,
    image.scannerVersion,
    image.scannedAt,
    now,
    counts.packages,
    counts.vulnerabilities,
  ];
}

/** A batch of the image's links to its packages: `$1` the account, `$2` the image, 3 arrays from `$n`. */
const insertImagePackagesSql = (n: number) =>
  `insert into vulnerability_image_packages (account_id, image_id, package_id, package_type, purl)
   select $1, $2, v.* from unnest($${n}::uuid[], $${n + 1}::text[], $${n + 2}::text[]) as v`;

const imagePackageParams = (batch: PackageRow[]) => [
  arrayLiteral(batch, (p) => p.id),
  arrayLiteral(batch, (p) => p.type),
  arrayLiteral(batch, (p) => p.purl),
];

/**
 * A batch of the image's findings: `$1` the account, `$2` the image, `$scannedAt` its scan time,
 * 13 arrays from `$n`. unnest cannot carry one array per row, so each row's CVE ids travel
 * space-separated.
 */
const insertFindingsSql = (scannedAt: number, n: number) => {
  const at = (i: number) => `$${n + i}`;
  return `insert into vulnerability_findings (account_id, image_id, scanned_at, cve_id, cve_name, package_id,
         severity, severity_rank, scanner_severity, fixed_in_version, data_source, lookup_cves, cvss_score,
         cvss_version, cvss_vector, published_at)
       select $1, $2, $${scannedAt}, v.cve_id, v.cve_name, v.package_id, v.severity, v.severity_rank,
              v.scanner_severity, v.fixed, v.data_source, string_to_array(v.lookup, ' '), v.cvss_score,
              v.cvss_version, v.cvss_vector, v.published_at
         from unnest(${at(0)}::uuid[], ${at(1)}::text[], ${at(2)}::uuid[], ${at(3)}::text[], ${at(4)}::int[],
                     ${at(5)}::text[], ${at(6)}::text[], ${at(7)}::text[], ${at(8)}::text[], ${at(9)}::float8[],
                     ${at(10)}::text[], ${at(11)}::text[], ${at(12)}::timestamptz[])
           as v (cve_id, cve_name, package_id, severity, severity_rank, scanner_severity, fixed, data_source,
                 lookup, cvss_score, cvss_version, cvss_vector, published_at)`;
};

const findingParams = (batch: FindingRow[]) => {
  const col = (pick: (row: FindingRow) => string | number | null) => arrayLiteral(batch, pick);
  return [
    col((f) => f.cveId),
    col((f) => f.cveName),
    col((f) => f.packageId),
    col((f) => f.severity),
    col((f) => f.severityRank),
    col((f) => f.scannerSeverity),
    col((f) => f.fixedInVersion),
    col((f) => f.dataSource),
    col((f) => f.lookupCves.join(' ')),
    col((f) => f.cvssScore),
    col((f) => f.cvssVersion),
    col((f) => f.cvssVector),
    col((f) => f.publishedAt),
  ];
};

export interface ScanCounts {
  packages: number;
  vulnerabilities: number;
}

/**
 * The scan's facts: the image row, its links to its packages and its findings (the CVE rows
 * they count towards are refreshed from them afterwards). The image and the first batch of each
 * travel as one statement (data-modifying CTEs; none of the three tables references another), so
 * a scan of up to WRITE_BATCH_SIZE findings costs one round trip here instead of three. A push
 * is a serial chain of round trips, each one waiting for the backend's turn on a shared machine
 * (docs/performance.md, "Fix 16b").
 */
export async function writeScanFacts(
  tx: Executor,
  scope: ScanScope,
  rows: { image: ImageRow; packages: PackageRow[]; findings: FindingRow[] },
  now: Date,
) {
  const { image, packages, findings } = rows;
  const counts = { packages: packages.length, vulnerabilities: findings.length };
  const [firstPackages = [], ...morePackages] = [...batches(packages)];
  const [firstFindings = [], ...moreFindings] = [...batches(findings)];
  const image17 = imageParams(scope, image, counts, now);
  await tx.query(
    `with image as (${UPSERT_IMAGE}),
     packages as (${insertImagePackagesSql(18)}),
     findings as (${insertFindingsSql(14, 21)})
     select 1`,
    [...image17, ...imagePackageParams(firstPackages), ...findingParams(firstFindings)],
  );
  for (const batch of morePackages)
    await tx.query(insertImagePackagesSql(3), [scope.accountId, image.id, ...imagePackageParams(batch)]);
  for (const batch of moreFindings)
    await tx.query(insertFindingsSql(3, 4), [
      scope.accountId,
      image.id,
      image.scannedAt,
      ...findingParams(batch),
    ]);
}
