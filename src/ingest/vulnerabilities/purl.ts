/**
 * The few parts of a package URL (https://github.com/package-url/purl-spec) the readers need:
 * type, namespace, name, version and qualifiers, percent-decoded.
 *
 * @example
 *   parsePurl('pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64')
 *   // { type: 'deb', namespace: 'debian', name: 'libssl3', version: '3.0.11-1~deb12u2', qualifiers: {arch: 'amd64'} }
 */
export interface Purl {
  type: string;
  namespace: string | null;
  name: string;
  version: string | null;
  qualifiers: Record<string, string>;
}

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null; // a stray % that is not an escape
  }
}

/** The parts of a package URL, or null when the string is not one. */
export function parsePurl(value: string): Purl | null {
  if (!value.startsWith('pkg:')) return null;
  let rest = value.slice(4).replace(/^\/+/, '');
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const qualifiers: Record<string, string> = {};
  const question = rest.indexOf('?');
  if (question >= 0) {
    for (const pair of rest.slice(question + 1).split('&')) {
      const equals = pair.indexOf('=');
      const key = equals > 0 ? pair.slice(0, equals).toLowerCase() : '';
      const decoded = decode(pair.slice(equals + 1));
      if (key && decoded !== null) qualifiers[key] = decoded;
    }
    rest = rest.slice(0, question);
  }
  let version: string | null = null;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    version = decode(rest.slice(at + 1));
    if (version === null) return null;
    rest = rest.slice(0, at);
  }
  const segments = rest.split('/').filter((segment) => segment !== '');
  const type = segments.shift()?.toLowerCase();
  const name = segments.length > 0 ? decode(segments.pop() as string) : null;
  if (!type || !/^[a-z][a-z0-9.+-]*$/.test(type) || !name) return null;
  const namespaceParts = segments.map(decode);
  if (namespaceParts.some((part) => part === null)) return null;
  return {
    type,
    namespace: namespaceParts.length > 0 ? namespaceParts.join('/') : null,
    name,
    version: version === '' ? null : version,
    qualifiers,
  };
}

/** Types whose namespace is a distribution or vendor, not part of the package's name. */
const NAMESPACE_IS_NOT_NAME = new Set([
  'deb',
  'rpm',
  'apk',
  'alpm',
  'pypi',
  'gem',
  'cargo',
  'nuget',
  'generic',
  'oci',
  'docker',
]);

/**
 * The package name as scanners write it: Maven `group:artifact`, npm `@scope/name`, Go
 * `github.com/org/module`; for OS packages the namespace is the distribution and is left out.
 */
export function purlPackageName(purl: Purl): string {
  if (!purl.namespace || NAMESPACE_IS_NOT_NAME.has(purl.type)) return purl.name;
  return purl.type === 'maven' ? `${purl.namespace}:${purl.name}` : `${purl.namespace}/${purl.name}`;
}
