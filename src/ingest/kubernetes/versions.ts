/**
 * Which of two versions of one object is newer. Kubernetes calls resourceVersion opaque, but every
 * API server backed by etcd hands out increasing integers; when both are integers they are
 * compared as such, otherwise the version that arrived later wins.
 *
 * @example
 *   isNewerVersion('1000', '999') // true
 *   isNewerVersion('999', '1000') // false: a late retry of an older push does not win
 */
const INTEGER = /^\d{1,40}$/;

export function isNewerVersion(candidate: string, current: string): boolean {
  if (INTEGER.test(candidate) && INTEGER.test(current)) return BigInt(candidate) > BigInt(current);
  return candidate !== current;
}
