/**
 * Stable ids. Storage diffs one computation against the next, so every id the engine hands out
 * is derived from names, never from random numbers or Kubernetes uids (a ServiceAccount deleted
 * and recreated under the same name keeps its identity and its risks' history).
 *
 * @example
 *   identityId('c1', 'ServiceAccount', 'payments', 'api') // same UUID on every run
 */
import { hash } from 'node:crypto';
import { version5Uuid } from '../../version5-uuid.js';

/** Arbitrary fixed UUID namespace of the engine (RFC 9562 name-based ids, version 5). */
const NAMESPACE = Buffer.from('5f0c3c7e8a2b4d6e9f1a2b3c4d5e6f70', 'hex');

/**
 * The namespace followed by a name's UTF-8, reused by every id, hashed in one call: the engine
 * makes an id per graph edge, binding subject and risk, 7% of the server's busy time in a large
 * cluster's binding pushes, and a Hash object with two updates per id cost a fifth more
 * (docs/performance.md, "Fix 70").
 */
let material = Buffer.alloc(4096);
NAMESPACE.copy(material);

/** A version-5 UUID of the parts; JSON-encoding them keeps ['a:b','c'] and ['a','b:c'] apart. */
export function stableId(...parts: readonly string[]): string {
  const name = JSON.stringify(parts);
  // A UTF-16 code unit is at most three bytes of UTF-8.
  if (material.length < NAMESPACE.length + name.length * 3) {
    material = Buffer.alloc(NAMESPACE.length + name.length * 3);
    NAMESPACE.copy(material);
  }
  const length = NAMESPACE.length + material.write(name, NAMESPACE.length, 'utf8');
  return version5Uuid(hash('sha1', material.subarray(0, length), 'buffer'));
}

/** Identity id: kind is `ServiceAccount`, `User` or `Group`; namespace '' except for service accounts. */
export const identityId = (clusterId: string, kind: string, namespace: string, name: string): string =>
  stableId('identity', clusterId, kind, namespace, name);

/** Id of a Role, ClusterRole, RoleBinding or ClusterRoleBinding of a cluster (graph node ids). */
export const rbacObjectId = (clusterId: string, kind: string, namespace: string, name: string): string =>
  stableId('rbac', clusterId, kind, namespace, name);

/** `kind/namespace/name` with an empty namespace for cluster-scoped objects. */
export const objectKey = (kind: string, namespace: string, name: string): string =>
  `${kind}/${namespace}/${name}`;
