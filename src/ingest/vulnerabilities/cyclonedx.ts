/**
 * CycloneDX JSON, spec 1.4 to 1.7, as written by Trivy (`-f cyclonedx`), Syft, Grype
 * (`-o cyclonedx-json`) and cdxgen. Components are the packages; a BOM without `vulnerabilities`
 * is valid and yields packages only. Each vulnerability names the packages it affects through
 * `affects[].ref`: a component's `bom-ref`, or a BOM-Link (`urn:cdx:serial/version#bom-ref`) or
 * package URL pointing into another BOM, read from the purl itself.
 *
 * Fixed versions: `affects[].versions[]` marked `unaffected` (an exact `version`, or a
 * `vers:` range `>=X`, as Grype writes), and Trivy's `recommendation` "Upgrade P to version X".
 */

import { ComponentIndex, type IndexedComponent, imageOfMetadataComponent } from './cyclonedx-components.js';
import { chooseRating } from './cyclonedx-ratings.js';
import { Fields, isObject, itemPath, type JsonObject, pathOf, quote } from './fields.js';
import type { ScanReport } from './model.js';
import { parsePurl, purlPackageName } from './purl.js';
import { ScanReportBuilder } from './report-builder.js';

export const CYCLONEDX_SPEC_VERSIONS = ['1.4', '1.5', '1.6', '1.7'];

export function looksLikeCycloneDx(doc: JsonObject): boolean {
  return doc.bomFormat === 'CycloneDX';
}

const RECOMMENDATION = /^Upgrade .+ to version (.+)$/;

/** The first tool of `metadata.tools`: a list in 1.4, `{components, services}` from 1.5. */
function firstTool(fields: Fields, metadata: JsonObject): { name: string | null; version: string | null } {
  const tools = metadata.tools;
  let list: unknown[] = [];
  let path = 'metadata.tools';
  if (Array.isArray(tools)) list = tools;
  else if (isObject(tools)) {
    list = fields.optionalArray(tools, 'components', path);
    path = pathOf(path, 'components');
    if (list.length === 0) {
      list = fields.optionalArray(tools, 'services', 'metadata.tools');
      path = 'metadata.tools.services';
    }
  }
  if (list.length === 0) return { name: null, version: null };
  const tool = fields.object(list[0], itemPath(path, 0));
  return {
    name: fields.optionalString(tool, 'name', itemPath(path, 0))?.toLowerCase() ?? null,
    version: fields.optionalString(tool, 'version', itemPath(path, 0)),
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The component a `ref` names: a bom-ref of this BOM, else a BOM-Link fragment or purl read as a package. */
function resolveRef(components: ComponentIndex, ref: string): IndexedComponent | null {
  const direct = components.get(ref);
  if (direct) return direct;
  let target = ref;
  if (ref.startsWith('urn:cdx:') && ref.includes('#')) {
    // The fragment is the bom-ref in the other BOM, percent-encoded by the spec, raw by Trivy.
    target = ref.slice(ref.indexOf('#') + 1);
    const linked = components.get(target) ?? components.get(safeDecode(target));
    if (linked) return linked;
  }
  const purl = parsePurl(target);
  if (!purl?.version) return null;
  return { path: ref, name: purlPackageName(purl), version: purl.version, type: purl.type, purl: target };
}

function fixedVersions(
  fields: Fields,
  affect: JsonObject,
  path: string,
  recommendation: string | null,
): string[] {
  const fixed: string[] = [];
  const versionsPath = pathOf(path, 'versions');
  const affected: string[] = [];
  fields.optionalArray(affect, 'versions', path).forEach((raw, index) => {
    const entry = fields.object(raw, itemPath(versionsPath, index));
    const status = fields.optionalString(entry, 'status', itemPath(versionsPath, index)) ?? 'affected';
    const version = fields.optionalString(entry, 'version', itemPath(versionsPath, index));
    const range = fields.optionalString(entry, 'range', itemPath(versionsPath, index));
    if (status === 'affected' && version) affected.push(version);
    if (status !== 'unaffected') return;
    if (version) fixed.push(version);
    // vers:deb/>=1.2.3|<2.0 -> every lower bound is a version that fixes it.
    for (const constraint of range?.replace(/^vers:[^/]*\//, '').split('|') ?? []) {
      if (constraint.startsWith('>=')) fixed.push(constraint.slice(2));
    }
  });
  const upgrade = recommendation ? RECOMMENDATION.exec(recommendation) : null;
  if (upgrade?.[1]) fixed.push(...upgrade[1].split(',').map((v) => v.trim()));
  return fixed.filter((v) => v !== '' && !affected.includes(v));
}

function readVulnerability(
  fields: Fields,
  builder: ScanReportBuilder,
  components: ComponentIndex,
  scanner: string,
  raw: unknown,
  path: string,
) {
  const vulnerability = fields.object(raw, path);
  const id = fields.requiredString(vulnerability, 'id', path);
  const source = fields.optionalObject(vulnerability, 'source', path);
  const feed = source ? fields.optionalString(source, 'name', pathOf(path, 'source')) : null;
  const rating = chooseRating(fields, vulnerability, path, feed);
  const aliases: string[] = [];
  const referencesPath = pathOf(path, 'references');
  fields.optionalArray(vulnerability, 'references', path).forEach((reference, index) => {
    const alias = fields.optionalString(
      fields.object(reference, itemPath(referencesPath, index)),
      'id',
      itemPath(referencesPath, index),
    );
    if (alias) aliases.push(alias);
  });
  const recommendation = fields.optionalString(vulnerability, 'recommendation', path);
  const publishedAt = fields.optionalTimestamp(vulnerability, 'published', path);
  const affects = fields.optionalArray(vulnerability, 'affects', path);
  if (affects.length === 0) {
    fields.fail(pathOf(path, 'affects'), 'required', 'is missing: nothing says which package is affected');
  }
  affects.forEach((rawAffect, index) => {
    const affectPath = itemPath(pathOf(path, 'affects'), index);
    const affect = fields.object(rawAffect, affectPath);
    const ref = fields.requiredString(affect, 'ref', affectPath);
    const component = resolveRef(components, ref);
    if (!component) {
      fields.fail(
        pathOf(affectPath, 'ref'),
        'invalid_value',
        `is ${quote(ref)}, which names no component of this BOM`,
      );
    }
    if (component.version === null) {
      fields.fail(
        pathOf(affectPath, 'ref'),
        'invalid_value',
        `names ${component.path} (${component.name}), which has no version`,
      );
    }
    builder.addVulnerability(
      {
        id,
        aliases,
        packageName: component.name,
        packageVersion: component.version,
        fixedVersions: fixedVersions(fields, affect, affectPath, recommendation),
        severity: rating.severity,
        scannerSeverity: rating.scannerSeverity,
        dataSource: {
          scanner,
          feed,
          url: source ? fields.optionalString(source, 'url', pathOf(path, 'source')) : null,
        },
        cvss: rating.cvss,
        publishedAt,
      },
      { name: component.name, version: component.version, type: component.type, purl: component.purl },
    );
  });
}

export function readCycloneDxReport(doc: JsonObject): ScanReport {
  const fields = new Fields('cyclonedx');
  const specVersion = doc.specVersion;
  if (typeof specVersion !== 'string' || !CYCLONEDX_SPEC_VERSIONS.includes(specVersion)) {
    const found = specVersion === undefined ? 'is missing' : `is ${JSON.stringify(specVersion)}`;
    fields.fail(
      'specVersion',
      specVersion === undefined ? 'required' : 'invalid_value',
      `${found}; versions ${CYCLONEDX_SPEC_VERSIONS.join(', ')} are read`,
    );
  }
  const metadata = fields.requiredObject(doc, 'metadata', '');
  const subject = fields.requiredObject(metadata, 'component', 'metadata');
  const image = imageOfMetadataComponent(fields, subject, 'metadata.component');
  const tool = firstTool(fields, metadata);
  const builder = new ScanReportBuilder();
  const components = new ComponentIndex(fields, builder);
  components.walk(
    fields.optionalArray(subject, 'components', 'metadata.component'),
    'metadata.component.components',
  );
  components.walk(fields.optionalArray(doc, 'components', ''), 'components');
  fields.optionalArray(doc, 'vulnerabilities', '').forEach((vulnerability, index) => {
    readVulnerability(
      fields,
      builder,
      components,
      tool.name ?? 'cyclonedx',
      vulnerability,
      itemPath('vulnerabilities', index),
    );
  });
  return builder.build({
    format: 'cyclonedx',
    scanner: tool,
    scannedAt: fields.optionalTimestamp(metadata, 'timestamp', 'metadata'),
    image,
  });
}
