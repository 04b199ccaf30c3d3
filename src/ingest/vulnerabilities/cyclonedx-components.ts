/**
 * CycloneDX components: packages from `components[]` (nested `components` walked recursively,
 * those under `metadata.component` too), indexed by `bom-ref` for `affects[].ref`, and the
 * scanned image from `metadata.component`.
 *
 * A component is a package when its type is library, framework or application and it has a
 * version (a package row is name + version). Operating systems, containers, files and the
 * version-less aggregates some tools emit (`package-lock.json`) are not packages.
 */
import { type Fields, itemPath, type JsonObject, pathOf } from './fields.js';
import { digestOf, isDigest, parseImageReference } from './image-reference.js';
import type { ScannedImage, ScannedPackage } from './model.js';
import { packageType } from './package-type.js';
import { parsePurl } from './purl.js';
import type { ScanReportBuilder } from './report-builder.js';
import { scannedImage } from './scanned-image.js';

const PACKAGE_TYPES = new Set(['library', 'framework', 'application']);

export interface IndexedComponent {
  path: string;
  name: string;
  version: string | null;
  type: string | null;
  purl: string | null;
}

/** Property values by name (`syft:package:type`, `aquasecurity:trivy:RepoDigest` may repeat). */
function properties(fields: Fields, component: JsonObject, path: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const listPath = pathOf(path, 'properties');
  fields.optionalArray(component, 'properties', path).forEach((raw, index) => {
    const property = fields.object(raw, itemPath(listPath, index));
    const name = fields.optionalString(property, 'name', itemPath(listPath, index));
    const value = fields.optionalString(property, 'value', itemPath(listPath, index));
    if (name && value) found.set(name, [...(found.get(name) ?? []), value]);
  });
  return found;
}

/**
 * CycloneDX puts a Maven groupId or an npm scope in `group`; package names elsewhere carry it
 * (Trivy writes `org.apache.logging.log4j:log4j-core` and `@babel/core`), so it is joined back.
 */
function qualifiedName(name: string, group: string | null, type: string | null): string {
  if (!group) return name;
  return type === 'maven' ? `${group}:${name}` : `${group}/${name}`;
}

export class ComponentIndex {
  private readonly byRef = new Map<string, IndexedComponent>();

  constructor(
    private readonly fields: Fields,
    private readonly builder: ScanReportBuilder,
  ) {}

  get(ref: string): IndexedComponent | undefined {
    return this.byRef.get(ref);
  }

  /** Reads a `components` list and everything nested in it. */
  walk(list: unknown[], listPath: string): void {
    list.forEach((raw, index) => {
      const path = itemPath(listPath, index);
      const component = this.fields.object(raw, path);
      const name = this.fields.requiredString(component, 'name', path);
      const group = this.fields.optionalString(component, 'group', path);
      const version = this.fields.optionalString(component, 'version', path);
      const purl = this.fields.optionalString(component, 'purl', path);
      const componentType = this.fields.optionalString(component, 'type', path) ?? 'library';
      const syftType = properties(this.fields, component, path).get('syft:package:type')?.[0] ?? null;
      const type = packageType(purl, syftType, 'syft');
      const entry: IndexedComponent = { path, name: qualifiedName(name, group, type), version, type, purl };
      const ref = this.fields.optionalString(component, 'bom-ref', path);
      if (ref !== null) {
        const previous = this.byRef.get(ref);
        if (previous)
          this.fields.fail(
            pathOf(path, 'bom-ref'),
            'invalid_value',
            `repeats the bom-ref of ${previous.path}`,
          );
        this.byRef.set(ref, entry);
      }
      if (PACKAGE_TYPES.has(componentType) && version !== null) {
        const pkg: ScannedPackage = { name: entry.name, version, type, purl };
        this.builder.addPackage(pkg);
      }
      this.walk(this.fields.optionalArray(component, 'components', path), pathOf(path, 'components'));
    });
  }
}

/**
 * The image of `metadata.component`: its name (with `group`) as the reference, `version` as the
 * tag or (Syft, Grype) the manifest digest, the digest of a `pkg:oci` purl, a SHA-256 hash, and
 * Trivy's `aquasecurity:trivy:RepoDigest` / `RepoTag` / `ImageID` properties.
 */
export function imageOfMetadataComponent(fields: Fields, component: JsonObject, path: string): ScannedImage {
  const name = fields.requiredString(component, 'name', path);
  const group = fields.optionalString(component, 'group', path);
  const version = fields.optionalString(component, 'version', path);
  const purl = fields.optionalString(component, 'purl', path);
  const props = properties(fields, component, path);
  let reference = group ? `${group}/${name}` : name;
  const versionDigest = version && isDigest(version) ? version : null;
  if (version && !versionDigest && parseImageReference(reference)?.tag === null)
    reference = `${reference}:${version}`;
  const purlVersion = purl ? parsePurl(purl)?.version : null;
  const purlDigest = purlVersion ? digestOf(purlVersion) : null;
  const hashesPath = pathOf(path, 'hashes');
  let hashDigest: string | null = null;
  fields.optionalArray(component, 'hashes', path).forEach((raw, index) => {
    const hash = fields.object(raw, itemPath(hashesPath, index));
    const alg = fields.optionalString(hash, 'alg', itemPath(hashesPath, index));
    const content = fields.optionalString(hash, 'content', itemPath(hashesPath, index));
    if (alg === 'SHA-256' && content && isDigest(`sha256:${content.toLowerCase()}`)) {
      hashDigest ??= `sha256:${content.toLowerCase()}`;
    }
  });
  return scannedImage(fields, {
    reference,
    referencePath: pathOf(path, 'name'),
    repoDigests: props.get('aquasecurity:trivy:RepoDigest') ?? [],
    repoDigestsPath: pathOf(path, 'properties[aquasecurity:trivy:RepoDigest]'),
    repoTags: props.get('aquasecurity:trivy:RepoTag') ?? [],
    imageId: props.get('aquasecurity:trivy:ImageID')?.[0] ?? null,
    imageIdPath: pathOf(path, 'properties[aquasecurity:trivy:ImageID]'),
    otherDigest: purlDigest ?? versionDigest ?? hashDigest,
  });
}
