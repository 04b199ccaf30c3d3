/**
 * Risk fingerprints: the same risk gets the same fingerprint on every ingestion, so storage can
 * tell "still there" from "new" and "gone". The hash covers what the risk is (identity, rule
 * type, scope) and what gives it (the bindings and roles, by kind/namespace/name), never
 * timestamps, uids or input order. A binding recreated under the same name keeps the fingerprint;
 * a different binding granting the same thing makes it a new risk (the old one is resolved).
 *
 * @example
 *   riskFingerprint(id, 'secrets_read', '', ['ClusterRoleBinding//ops', 'ClusterRole//reader'])
 */
import { hash } from 'node:crypto';
import { stableId } from './ids.js';
import { sortedUnique } from './order.js';

export function riskFingerprint(
  identityId: string,
  type: string,
  scope: string,
  resourceKeys: readonly string[],
): string {
  const material = JSON.stringify(['risk/v1', identityId, type, scope, sortedUnique(resourceKeys)]);
  return hash('sha256', material, 'hex');
}

/** The risk's id: a UUID of its fingerprint, so it is stable exactly when the fingerprint is. */
export const riskId = (fingerprint: string): string => stableId('risk', fingerprint);
