/**
 * The normalized scan model every reader (Trivy, Grype, CycloneDX) produces: one image, the
 * packages found in it and the vulnerabilities matched against those packages. Nothing here
 * depends on the scanner that wrote the report, so storage and the reports (#9, #10, #11) never
 * look at scanner vocabularies. See docs/vulnerability-ingestion.md.
 */
import type { Severity } from './severity.js';

export type ScanFormat = 'trivy' | 'grype' | 'cyclonedx';

export const FORMAT_LABELS: Record<ScanFormat, string> = {
  trivy: 'Trivy JSON',
  grype: 'Grype JSON',
  cyclonedx: 'CycloneDX JSON',
};

/**
 * The scanned image. `digest` is the registry (manifest or index) digest, the one Kubernetes
 * reports in a container's `imageID`; `imageId` is the config digest a local engine shows. Either
 * may be null when the scanner did not know it (an image scanned from a tarball has no repo digest).
 */
export interface ScannedImage {
  /** The reference as the scanner reported it, e.g. `nginx:1.25.3`. */
  reference: string | null;
  /** The name as written, without tag or digest: `nginx`, `registry.example.com:5000/shop/api`. */
  name: string | null;
  /** The registry host (default `docker.io`). */
  registry: string | null;
  /** Canonical repository with its registry: `docker.io/library/nginx`. */
  repository: string | null;
  tag: string | null;
  /** `sha256:<64 hex>` of the manifest (or index) in the registry. */
  digest: string | null;
  /** `sha256:<64 hex>` of the image config (`docker images --digests` IMAGE ID). */
  imageId: string | null;
  /** Every `repo@digest` the scanner listed, as given. */
  repoDigests: string[];
  /** Every `repo:tag` the scanner listed, as given. */
  repoTags: string[];
}

export interface ScannedPackage {
  name: string;
  version: string;
  /** Ecosystem in package-URL type vocabulary (`deb`, `apk`, `rpm`, `npm`, `golang`, `maven`, `pypi`...). */
  type: string | null;
  purl: string | null;
}

export interface DataSource {
  /** The tool that matched: `trivy`, `grype`, or the tool a CycloneDX BOM names. */
  scanner: string;
  /** The advisory feed it matched against: Trivy `DataSource.ID`, Grype `namespace`, CycloneDX `source.name`. */
  feed: string | null;
  url: string | null;
}

export interface Cvss {
  /** Base score, 0.0 to 10.0. */
  score: number;
  /** `2.0`, `3.0`, `3.1`, `4.0`, or null when the scanner did not say. */
  version: string | null;
  vector: string | null;
}

export interface ScannedVulnerability {
  /** As the scanner reported it (`CVE-2024-1234`, `GHSA-xxxx-xxxx-xxxx`); CVE ids upper-cased. */
  id: string;
  /** Other ids of the same vulnerability (Grype's related CVE of a GHSA), for EPSS/KEV lookups. */
  aliases: string[];
  packageName: string;
  packageVersion: string;
  /** Versions that fix it, in the scanner's order; empty when there is no fix. */
  fixedVersions: string[];
  severity: Severity;
  /** The scanner's own word for the severity, kept for audit (`HIGH`, `Negligible`, `info`). */
  scannerSeverity: string | null;
  dataSource: DataSource;
  cvss: Cvss | null;
  /** RFC 3339 UTC with milliseconds. */
  publishedAt: string | null;
}

export interface ScanReport {
  format: ScanFormat;
  scanner: { name: string | null; version: string | null };
  /** When the scan ran, RFC 3339 UTC with milliseconds; null when the report does not say. */
  scannedAt: string | null;
  image: ScannedImage;
  /** One entry per name+version (every package a vulnerability names is listed too). */
  packages: ScannedPackage[];
  /** One entry per vulnerability id + package name + version. */
  vulnerabilities: ScannedVulnerability[];
}

/** `trivy/debian`: the `data_source` string of a CVE report row. */
export function dataSourceLabel(source: DataSource): string {
  return source.feed ? `${source.scanner}/${source.feed}` : source.scanner;
}
