/**
 * Container image references as Docker and Kubernetes read them: `[registry/]path[:tag][@digest]`.
 * A first component holding `.` or `:` (or `localhost`) is a registry; otherwise the registry is
 * Docker Hub, where one-component names live under `library/`. The canonical repository
 * (`docker.io/library/nginx`) is what a scan and a running container are matched on.
 *
 * @example
 *   parseImageReference('registry.example.com:5000/shop/api:2.3.1')
 *   // { name: 'registry.example.com:5000/shop/api', registry: 'registry.example.com:5000',
 *   //   repository: 'registry.example.com:5000/shop/api', tag: '2.3.1', digest: null }
 */
export interface ImageReference {
  name: string;
  registry: string;
  repository: string;
  tag: string | null;
  digest: string | null;
}

const DOCKER_HUB = 'docker.io';
/** OCI image-spec digest: algorithm, `:`, encoded hash (sha256 = 64 lowercase hex). */
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const SHA256 = /^sha256:[a-f0-9]{64}$/;
const TAG = /^\w[\w.-]{0,127}$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const REGISTRY = /^(?:[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*|\[[0-9a-fA-F:]+\])(?::\d{1,5})?$/;

/** True for a well-formed digest; sha256 digests must be 64 lowercase hex digits. */
export function isDigest(value: string): boolean {
  return value.startsWith('sha256:') ? SHA256.test(value) : DIGEST.test(value);
}

function canonicalRegistry(registry: string): string {
  return registry === 'index.docker.io' || registry === 'registry-1.docker.io' ? DOCKER_HUB : registry;
}

/** The parts of a reference, or null when it is not a valid image reference. */
export function parseImageReference(reference: string): ImageReference | null {
  let rest = reference.trim();
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isDigest(digest)) return null;
  }
  let tag: string | null = null;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return null;
  }
  const name = rest;
  const components = name.split('/');
  const first = components[0] ?? '';
  const hasRegistry =
    components.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = hasRegistry ? canonicalRegistry(first) : DOCKER_HUB;
  if (hasRegistry && !REGISTRY.test(first)) return null;
  const path = hasRegistry ? components.slice(1) : components;
  if (path.length === 0 || !path.every((component) => PATH_COMPONENT.test(component))) return null;
  if (registry === DOCKER_HUB && path.length === 1) path.unshift('library');
  return { name, registry, repository: `${registry}/${path.join('/')}`, tag, digest };
}

/** The digest of `repo@sha256:...`, or of a bare `sha256:...`; null when there is none. */
export function digestOf(value: string): string | null {
  const candidate = value.includes('@') ? value.slice(value.indexOf('@') + 1) : value;
  return isDigest(candidate) ? candidate : null;
}
