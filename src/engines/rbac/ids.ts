/**
 * Stable ids. Storage diffs one computation against the next, so every id the engine hands out
 * is derived from names, never from random numbers or Kubernetes uids (a ServiceAccount deleted
 * and recreated under the same name keeps its identity and its risks' history).
 *
 * @example
 *   identityId('c1', 'ServiceAccount', 'payments', 'api') // same UUID on every run
 */
import { createHash } from 'node:crypto';

/** Arbitrary fixed UUID namespace of the engine (RFC 9562 name-based ids, version 5). */
const NAMESPACE = Buffer.from('5f0c3c7e8a2b4d6e9f1a2b3c4d5e6f70', 'hex');

/** A version-5 UUID of the parts; JSON-encoding them keeps ['a:b','c'] and ['a','b:c'] apart. */
export function stableId(...parts: readonly string[]): string {
  const hash = createHash('sha1').update(NAMESPACE).update(JSON.stringify(parts)).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
