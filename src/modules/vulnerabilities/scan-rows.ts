/**
 * What one scan report becomes in storage: the image row, one row per package and one finding per
 * vulnerability, with ids derived from their natural keys (so the same package or CVE row keeps
 * its id across scans and images) and the values the reports read (data_source, fixed versions,
 * the CVE ids EPSS and KEV are looked up by). Pure: no database, no clock.
 *
 * @example
 *   const rows = scanRows(accountId, report, new Date());
 *   // rows.image.imageKey === 'sha256:b234...' (the registry digest), rows.findings[0].cveId ...
 */
import { stableId } from '../../ingest/kubernetes/inventory.js';
import { dataSourceLabel, type ScanFormat, type ScanReport } from '../../ingest/vulnerabilities/model.js';
import { type Severity, severityRank } from '../../ingest/vulnerabilities/severity.js';

export interface ImageRow {
  id: string;
  /** The registry digest, or `repository:tag` for a scan that knows no digest. */
  imageKey: string;
  imageRepo: string;
  imageName: string;
  imageTag: string;
  imageDigest: string;
  configDigest: string;
  imageReference: string;
  scanFormat: ScanFormat;
  scannerName: string | null;
  scannerVersion: string | null;
  scannedAt: Date;
}

export interface PackageRow {
  id: string;
  name: string;
  version: string;
  type: string | null;
  purl: string | null;
}

export interface FindingRow {
  /** The id of the CVE report row (CVE x package x version) this finding counts towards. */
  cveId: string;
  cveName: string;
  packageId: string;
  packageName: string;
  packageVersion: string;
  severity: Severity;
  severityRank: number;
  scannerSeverity: string | null;
  /** The fixed versions joined with `, `; '' when there is no fix. */
  fixedInVersion: string;
  dataSource: string;
  lookupCves: string[];
  cvssScore: number | null;
  cvssVersion: string | null;
  cvssVector: string | null;
  publishedAt: string | null;
}

export interface ScanRows {
  image: ImageRow;
  packages: PackageRow[];
  findings: FindingRow[];
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

export const packageId = (accountId: string, name: string, version: string) =>
  stableId('vulnerability-package', accountId, name, version);

export const cveRowId = (accountId: string, cveName: string, pkgId: string) =>
  stableId('vulnerability-cve', accountId, cveName, pkgId);

/** The last component of a repository: `docker.io/library/nginx` -> `nginx` (as inventory containers). */
const lastComponent = (repository: string) => repository.slice(repository.lastIndexOf('/') + 1);

/** A report dated in the future (a scanner's clock ahead) counts as scanned now. */
function scanTime(report: ScanReport, now: Date): Date {
  const reported = report.scannedAt ? new Date(report.scannedAt) : now;
  return reported.getTime() > now.getTime() ? now : reported;
}

function imageRow(accountId: string, report: ScanReport, now: Date): ImageRow {
  const { image } = report;
  const imageRepo = image.repository ?? '';
  const imageTag = image.tag ?? '';
  const imageDigest = image.digest ?? '';
  // The reader refuses a report naming neither a repository nor a digest, so the key is never ':'.
  const imageKey = imageDigest || `${imageRepo}:${imageTag}`;
  return {
    id: stableId('vulnerability-image', accountId, imageKey),
    imageKey,
    imageRepo,
    imageName: imageRepo ? lastComponent(imageRepo) : '',
    imageTag,
    imageDigest,
    configDigest: image.imageId ?? '',
    imageReference: image.reference ?? (imageDigest ? `${imageRepo}@${imageDigest}` : imageKey),
    scanFormat: report.format,
    scannerName: report.scanner.name,
    scannerVersion: report.scanner.version,
    scannedAt: scanTime(report, now),
  };
}

export function scanRows(accountId: string, report: ScanReport, now: Date): ScanRows {
  // A package's findings share its id: one hash per package, not one per finding (a scan has
  // about ten findings per vulnerable package, and hashing was a tenth of a push's server CPU).
  const packageIds = new Map<string, string>();
  const idOf = (name: string, version: string) => {
    const key = `${name}\u0000${version}`;
    let id = packageIds.get(key);
    if (id === undefined) {
      id = packageId(accountId, name, version);
      packageIds.set(key, id);
    }
    return id;
  };
  const packages = report.packages.map((pkg) => ({
    id: idOf(pkg.name, pkg.version),
    name: pkg.name,
    version: pkg.version,
    type: pkg.type,
    purl: pkg.purl,
  }));
  const findings = report.vulnerabilities.map((vulnerability): FindingRow => {
    const pkgId = idOf(vulnerability.packageName, vulnerability.packageVersion);
    // EPSS and KEV are keyed by CVE: a CVE finding looks up itself (its aliases would blur its
    // own score), a GHSA or distribution id its CVE aliases.
    const lookupCves = CVE_ID.test(vulnerability.id)
      ? [vulnerability.id]
      : vulnerability.aliases.filter((id) => CVE_ID.test(id));
    return {
      cveId: cveRowId(accountId, vulnerability.id, pkgId),
      cveName: vulnerability.id,
      packageId: pkgId,
      packageName: vulnerability.packageName,
      packageVersion: vulnerability.packageVersion,
      severity: vulnerability.severity,
      severityRank: severityRank(vulnerability.severity),
      scannerSeverity: vulnerability.scannerSeverity,
      fixedInVersion: vulnerability.fixedVersions.join(', '),
      dataSource: dataSourceLabel(vulnerability.dataSource),
      lookupCves: [...new Set(lookupCves)],
      cvssScore: vulnerability.cvss?.score ?? null,
      cvssVersion: vulnerability.cvss?.version ?? null,
      cvssVector: vulnerability.cvss?.vector ?? null,
      publishedAt: vulnerability.publishedAt,
    };
  });
  return { image: imageRow(accountId, report, now), packages, findings };
}
