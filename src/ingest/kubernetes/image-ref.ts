/**
 * Container image references as Kubernetes reports them, split into repository, name, tag and
 * digest. Follows the distribution reference grammar: the first path component is a registry
 * host when it has a `.` or `:` (a port) or is `localhost`; otherwise the image is on Docker Hub,
 * where one-component names live under `library/`.
 *
 * @example
 *   parseImageReference('registry.local:5000/team/api:1.2@sha256:ab...')
 *   // { repo: 'registry.local:5000/team/api', name: 'api', tag: '1.2', digest: 'sha256:ab...' }
 *   parseImageReference('nginx') // { repo: 'docker.io/library/nginx', name: 'nginx', tag: '', digest: '' }
 */

export interface ImageRef {
  /** registry host (with port) and path, without tag or digest */
  repo: string;
  /** last path component of the repository */
  name: string;
  /** '' when the reference names no tag */
  tag: string;
  /** `sha256:<hex>`, '' when unknown */
  digest: string;
}

const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-f0-9]{32,}$/i;
/** Runtime prefixes seen in `imageID` and `image`: docker-pullable://, docker://, containerd:// ... */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

export function stripScheme(reference: string): string {
  return reference.trim().replace(SCHEME, '');
}

function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

/**
 * Parsed references by text: a push names the same few images thousands of times (every
 * replica, in its spec and its status, read by the digests, the inventory and the findings), so
 * each distinct text is parsed once. Cleared when it grows past a bound; the results are frozen,
 * since callers share them.
 */
const parsed = new Map<string, Readonly<ImageRef>>();
const PARSED_MAX = 10_000;

export function parseImageReference(reference: string): Readonly<ImageRef> {
  let ref = parsed.get(reference);
  if (ref === undefined) {
    if (parsed.size >= PARSED_MAX) parsed.clear();
    ref = Object.freeze(parseUncached(reference));
    parsed.set(reference, ref);
  }
  return ref;
}

function parseUncached(reference: string): ImageRef {
  const text = stripScheme(reference);
  const at = text.indexOf('@');
  const candidate = at >= 0 ? text.slice(at + 1) : '';
  const digest = DIGEST.test(candidate) ? candidate.toLowerCase() : '';
  const named = at >= 0 ? text.slice(0, at) : text;

  // A bare digest (`sha256:...`) names an image id, not a repository.
  if (DIGEST.test(named)) return { repo: '', name: '', tag: '', digest: digest || named.toLowerCase() };
  if (named === '') return { repo: '', name: '', tag: '', digest };

  const lastSlash = named.lastIndexOf('/');
  const colon = named.indexOf(':', lastSlash + 1);
  const path = colon >= 0 ? named.slice(0, colon) : named;
  const tag = colon >= 0 ? named.slice(colon + 1) : '';

  const components = path.split('/');
  let registry = DOCKER_HUB;
  if (components.length > 1 && isRegistryHost(components[0] ?? '')) {
    registry = (components.shift() ?? '').toLowerCase();
    if (DOCKER_HUB_ALIASES.has(registry)) registry = DOCKER_HUB;
  }
  if (registry === DOCKER_HUB && components.length === 1) components.unshift('library');
  const repoPath = components.join('/');
  return {
    repo: repoPath ? `${registry}/${repoPath}` : '',
    name: components[components.length - 1] ?? '',
    tag,
    digest,
  };
}

/**
 * What a container runs: repository and tag from the spec image (what was asked for, falling
 * back to the status image), the digest from the spec when pinned, else from the status imageID.
 */
export function containerImage(specImage: string, statusImage: string, imageId: string): ImageRef {
  const spec = parseImageReference(specImage || statusImage);
  const digest = spec.digest || (imageId ? parseImageReference(imageId).digest : '');
  if (spec.repo) return { ...spec, digest };
  return { ...parseImageReference(statusImage), digest };
}
