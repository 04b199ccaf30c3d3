/**
 * Trivy JSON (`trivy image -f json`, SchemaVersion 2). The image comes from `ArtifactName` and
 * `Metadata` (RepoDigests, RepoTags, ImageID); packages from `Results[].Packages[]` (present with
 * `--list-all-pkgs`) and from every vulnerability; vulnerabilities from
 * `Results[].Vulnerabilities[]`. Secret, misconfiguration and license results carry none of these
 * lists and are passed over.
 */
import { cvssVersionFromVector, preferredCvss } from './cvss.js';
import { Fields, isObject, itemPath, type JsonObject, pathOf, quote } from './fields.js';
import type { Cvss, ScannedPackage, ScanReport } from './model.js';
import { packageType } from './package-type.js';
import { ScanReportBuilder } from './report-builder.js';
import { scannedImage } from './scanned-image.js';
import { mapSeverity, vocabularyWords } from './severity.js';

/** Trivy's own top-level keys; no other format has `SchemaVersion` next to `Results` or `ArtifactName`. */
export function looksLikeTrivy(doc: JsonObject): boolean {
  return 'SchemaVersion' in doc && ('Results' in doc || 'ArtifactName' in doc);
}

/**
 * Trivy writes `Version`, `Release` and `Epoch` apart in its package list but joined
 * (`epoch:version-release`) in `InstalledVersion`; joining them here makes both lists agree.
 */
function installedVersion(fields: Fields, pkg: JsonObject, path: string): string | null {
  const version = fields.optionalString(pkg, 'Version', path);
  if (version === null) return null;
  const release = fields.optionalString(pkg, 'Release', path);
  const epoch = fields.optionalNumber(pkg, 'Epoch', path);
  return `${epoch ? `${epoch}:` : ''}${version}${release ? `-${release}` : ''}`;
}

function identifierPurl(fields: Fields, item: JsonObject, key: string, path: string): string | null {
  const identifier = fields.optionalObject(item, key, path);
  return identifier ? fields.optionalString(identifier, 'PURL', pathOf(path, key)) : null;
}

/**
 * The score of the source Trivy took the severity from, else NVD's, else the first other source
 * by name; within a source the newest CVSS version.
 */
function trivyCvss(
  fields: Fields,
  cvss: JsonObject | null,
  severitySource: string | null,
  path: string,
): Cvss | null {
  if (!cvss) return null;
  const sources = Object.keys(cvss).sort((a, b) => {
    const rank = (source: string) => (source === severitySource ? 0 : source === 'nvd' ? 1 : 2);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  let chosen: Cvss | null = null;
  for (const source of sources) {
    const sourcePath = pathOf(path, source);
    const entry = fields.object(cvss[source], sourcePath);
    const candidates: Cvss[] = [];
    const v4 = fields.optionalScore(entry, 'V40Score', sourcePath);
    const v3 = fields.optionalScore(entry, 'V3Score', sourcePath);
    const v2 = fields.optionalScore(entry, 'V2Score', sourcePath);
    const v3Vector = fields.optionalString(entry, 'V3Vector', sourcePath);
    if (v4 !== null)
      candidates.push({
        score: v4,
        version: '4.0',
        vector: fields.optionalString(entry, 'V40Vector', sourcePath),
      });
    if (v3 !== null)
      candidates.push({ score: v3, version: cvssVersionFromVector(v3Vector) ?? '3.0', vector: v3Vector });
    if (v2 !== null)
      candidates.push({
        score: v2,
        version: '2.0',
        vector: fields.optionalString(entry, 'V2Vector', sourcePath),
      });
    // Every source is still validated: a malformed score anywhere is refused, not skipped.
    chosen ??= preferredCvss(candidates);
  }
  return chosen;
}

function readVulnerability(
  fields: Fields,
  builder: ScanReportBuilder,
  raw: unknown,
  path: string,
  resultType: string | null,
) {
  const item = fields.object(raw, path);
  const id = fields.requiredString(item, 'VulnerabilityID', path);
  const name = fields.requiredString(item, 'PkgName', path);
  const version = fields.requiredString(item, 'InstalledVersion', path);
  const word = fields.requiredString(item, 'Severity', path);
  const severity = mapSeverity('trivy', word);
  if (!severity) {
    fields.fail(
      pathOf(path, 'Severity'),
      'invalid_value',
      `is ${quote(word)}, expected one of ${vocabularyWords('trivy').join(', ')}`,
    );
  }
  // Several fixed versions come comma-separated: "1.5.13, 1.3.15" (one per release line).
  const fixed = fields.optionalString(item, 'FixedVersion', path);
  const dataSource = fields.optionalObject(item, 'DataSource', path);
  const dataSourcePath = pathOf(path, 'DataSource');
  const severitySource = fields.optionalString(item, 'SeveritySource', path);
  const purl = identifierPurl(fields, item, 'PkgIdentifier', path);
  const pkg: ScannedPackage = { name, version, type: packageType(purl, resultType, 'trivy'), purl };
  builder.addVulnerability(
    {
      id,
      aliases: [],
      packageName: name,
      packageVersion: version,
      fixedVersions: fixed
        ? fixed
            .split(',')
            .map((v) => v.trim())
            .filter((v) => v !== '')
        : [],
      severity,
      scannerSeverity: word,
      dataSource: {
        scanner: 'trivy',
        feed: dataSource ? fields.optionalString(dataSource, 'ID', dataSourcePath) : null,
        url: dataSource ? fields.optionalString(dataSource, 'URL', dataSourcePath) : null,
      },
      cvss: trivyCvss(
        fields,
        fields.optionalObject(item, 'CVSS', path),
        severitySource,
        pathOf(path, 'CVSS'),
      ),
      publishedAt: fields.optionalTimestamp(item, 'PublishedDate', path),
    },
    pkg,
  );
}

function readPackage(
  fields: Fields,
  builder: ScanReportBuilder,
  raw: unknown,
  path: string,
  resultType: string | null,
) {
  const item = fields.object(raw, path);
  const name = fields.requiredString(item, 'Name', path);
  const version = installedVersion(fields, item, path);
  // A package without a version cannot be a package row (name + version); nothing refers to it.
  if (version === null) return;
  const purl = identifierPurl(fields, item, 'Identifier', path);
  builder.addPackage({ name, version, type: packageType(purl, resultType, 'trivy'), purl });
}

export function readTrivyReport(doc: JsonObject): ScanReport {
  const fields = new Fields('trivy');
  if (doc.SchemaVersion !== 2) {
    fields.fail(
      'SchemaVersion',
      'invalid_value',
      `is ${JSON.stringify(doc.SchemaVersion)}; only schema version 2 is read`,
    );
  }
  const artifactType = fields.optionalString(doc, 'ArtifactType', '');
  if (artifactType !== null && artifactType !== 'container_image') {
    fields.fail(
      'ArtifactType',
      'invalid_value',
      `is ${quote(artifactType)}; only container_image scans describe an image`,
    );
  }
  const metadata = fields.optionalObject(doc, 'Metadata', '') ?? {};
  const image = scannedImage(fields, {
    reference: fields.requiredString(doc, 'ArtifactName', ''),
    referencePath: 'ArtifactName',
    repoDigests: fields.stringArray(metadata, 'RepoDigests', 'Metadata'),
    repoDigestsPath: 'Metadata.RepoDigests',
    repoTags: fields.stringArray(metadata, 'RepoTags', 'Metadata'),
    imageId: fields.optionalString(metadata, 'ImageID', 'Metadata'),
    imageIdPath: 'Metadata.ImageID',
  });
  const builder = new ScanReportBuilder();
  fields.optionalArray(doc, 'Results', '').forEach((raw, index) => {
    const path = itemPath('Results', index);
    const result = fields.object(raw, path);
    const resultType = fields.optionalString(result, 'Type', path);
    fields.optionalArray(result, 'Packages', path).forEach((pkg, i) => {
      readPackage(fields, builder, pkg, itemPath(pathOf(path, 'Packages'), i), resultType);
    });
    fields.optionalArray(result, 'Vulnerabilities', path).forEach((vulnerability, i) => {
      readVulnerability(
        fields,
        builder,
        vulnerability,
        itemPath(pathOf(path, 'Vulnerabilities'), i),
        resultType,
      );
    });
  });
  const trivy = isObject(doc.Trivy) ? doc.Trivy : null;
  return builder.build({
    format: 'trivy',
    scanner: { name: 'trivy', version: trivy ? fields.optionalString(trivy, 'Version', 'Trivy') : null },
    scannedAt: fields.optionalTimestamp(doc, 'CreatedAt', ''),
    image,
  });
}
