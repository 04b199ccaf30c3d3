/**
 * Grype JSON (`grype IMAGE -o json`). The image comes from `source.target` (userInput, imageID,
 * manifestDigest, repoDigests, tags); each `matches[]` entry pairs a `vulnerability` with the
 * `artifact` (package) it was found in. Grype lists only matched packages, so the package list is
 * the set of artifacts. A GHSA match names its CVE in `relatedVulnerabilities`: kept as aliases.
 */
import { cvssVersionFromVector, normalizeCvssVersion, preferredCvss } from './cvss.js';
import { Fields, isObject, itemPath, type JsonObject, pathOf, quote } from './fields.js';
import { isDigest } from './image-reference.js';
import type { Cvss, ScanReport } from './model.js';
import { packageType } from './package-type.js';
import { ScanReportBuilder } from './report-builder.js';
import { scannedImage } from './scanned-image.js';
import { mapSeverity, vocabularyWords } from './severity.js';

/** Grype's top level: `matches` beside `source` or `descriptor` (no other format has `matches`). */
export function looksLikeGrype(doc: JsonObject): boolean {
  return 'matches' in doc && (isObject(doc.source) || isObject(doc.descriptor));
}

/** Grype's `cvss[]`: `{version, vector, metrics: {baseScore}, type?: Primary|Secondary}`; Primary first. */
function grypeCvss(fields: Fields, list: unknown[], path: string): Cvss[] {
  const candidates = list.map((raw, index) => {
    const entryPath = itemPath(path, index);
    const entry = fields.object(raw, entryPath);
    const metrics = fields.requiredObject(entry, 'metrics', entryPath);
    const score = fields.optionalScore(metrics, 'baseScore', pathOf(entryPath, 'metrics'));
    if (score === null)
      fields.fail(pathOf(pathOf(entryPath, 'metrics'), 'baseScore'), 'required', 'is missing');
    const vector = fields.optionalString(entry, 'vector', entryPath);
    const version =
      normalizeCvssVersion(fields.optionalString(entry, 'version', entryPath)) ??
      cvssVersionFromVector(vector);
    const primary = fields.optionalString(entry, 'type', entryPath) !== 'Secondary';
    return { cvss: { score, version, vector }, primary };
  });
  return [...candidates.filter((c) => c.primary), ...candidates.filter((c) => !c.primary)].map((c) => c.cvss);
}

function readMatch(fields: Fields, builder: ScanReportBuilder, raw: unknown, path: string) {
  const match = fields.object(raw, path);
  const vulnerabilityPath = pathOf(path, 'vulnerability');
  const vulnerability = fields.requiredObject(match, 'vulnerability', path);
  const artifactPath = pathOf(path, 'artifact');
  const artifact = fields.requiredObject(match, 'artifact', path);

  const id = fields.requiredString(vulnerability, 'id', vulnerabilityPath);
  // Grype leaves `severity` out when its database has none: that is an unspecified severity.
  const word = fields.optionalString(vulnerability, 'severity', vulnerabilityPath);
  const severity = word === null ? 'unspecified' : mapSeverity('grype', word);
  if (!severity) {
    fields.fail(
      pathOf(vulnerabilityPath, 'severity'),
      'invalid_value',
      `is ${quote(word ?? '')}, expected one of ${vocabularyWords('grype').join(', ')}`,
    );
  }
  const fix = fields.optionalObject(vulnerability, 'fix', vulnerabilityPath);
  const ownCvss = grypeCvss(
    fields,
    fields.optionalArray(vulnerability, 'cvss', vulnerabilityPath),
    pathOf(vulnerabilityPath, 'cvss'),
  );
  const aliases: string[] = [];
  const relatedCvss: Cvss[] = [];
  const relatedPath = pathOf(path, 'relatedVulnerabilities');
  fields.optionalArray(match, 'relatedVulnerabilities', path).forEach((rawRelated, index) => {
    const entryPath = itemPath(relatedPath, index);
    const related = fields.object(rawRelated, entryPath);
    aliases.push(fields.requiredString(related, 'id', entryPath));
    relatedCvss.push(
      ...grypeCvss(fields, fields.optionalArray(related, 'cvss', entryPath), pathOf(entryPath, 'cvss')),
    );
  });

  const name = fields.requiredString(artifact, 'name', artifactPath);
  const version = fields.requiredString(artifact, 'version', artifactPath);
  const purl = fields.optionalString(artifact, 'purl', artifactPath);
  const type = packageType(purl, fields.optionalString(artifact, 'type', artifactPath), 'syft');
  builder.addVulnerability(
    {
      id,
      aliases,
      packageName: name,
      packageVersion: version,
      fixedVersions: fix ? fields.stringArray(fix, 'versions', pathOf(vulnerabilityPath, 'fix')) : [],
      severity,
      scannerSeverity: word,
      dataSource: {
        scanner: 'grype',
        feed: fields.optionalString(vulnerability, 'namespace', vulnerabilityPath),
        url: fields.optionalString(vulnerability, 'dataSource', vulnerabilityPath),
      },
      // The match's own scores first; the related (NVD) record's only when the match has none.
      cvss: preferredCvss(ownCvss) ?? preferredCvss(relatedCvss),
      publishedAt: null, // Grype's JSON does not carry the publication date
    },
    { name, version, type, purl },
  );
}

export function readGrypeReport(doc: JsonObject): ScanReport {
  const fields = new Fields('grype');
  const source = fields.requiredObject(doc, 'source', '');
  const sourceType = fields.requiredString(source, 'type', 'source');
  if (sourceType !== 'image') {
    fields.fail(
      'source.type',
      'invalid_value',
      `is ${quote(sourceType)}; only image scans describe an image`,
    );
  }
  const target = fields.requiredObject(source, 'target', 'source');
  const manifestDigest = fields.optionalString(target, 'manifestDigest', 'source.target');
  if (manifestDigest !== null && !isDigest(manifestDigest)) {
    fields.fail(
      'source.target.manifestDigest',
      'invalid_format',
      `is ${quote(manifestDigest)}, expected sha256:<64 hex digits>`,
    );
  }
  const image = scannedImage(fields, {
    reference: fields.requiredString(target, 'userInput', 'source.target'),
    referencePath: 'source.target.userInput',
    repoDigests: fields.stringArray(target, 'repoDigests', 'source.target'),
    repoDigestsPath: 'source.target.repoDigests',
    repoTags: fields.stringArray(target, 'tags', 'source.target'),
    imageId: fields.optionalString(target, 'imageID', 'source.target'),
    imageIdPath: 'source.target.imageID',
    otherDigest: manifestDigest,
  });
  const builder = new ScanReportBuilder();
  fields.requiredArray(doc, 'matches', '').forEach((match, index) => {
    readMatch(fields, builder, match, itemPath('matches', index));
  });
  const descriptor = fields.optionalObject(doc, 'descriptor', '');
  return builder.build({
    format: 'grype',
    scanner: {
      name: (descriptor && fields.optionalString(descriptor, 'name', 'descriptor')) ?? 'grype',
      version: descriptor ? fields.optionalString(descriptor, 'version', 'descriptor') : null,
    },
    scannedAt: descriptor ? fields.optionalTimestamp(descriptor, 'timestamp', 'descriptor') : null,
    image,
  });
}
