/**
 * Risk and identity history across computations: what storage keeps between ingestions. The
 * engine is stateless; storage passes the previous state of an identity and the fingerprints of
 * its risks now, and stores what this returns. A risk that disappears is resolved (`deleted_at`),
 * not forgotten; if it comes back it is reopened with its first detection kept.
 *
 * Identity status: `open` while it has at least one open risk, otherwise `resolved` with
 * `resolved_at` (since when) and `resolved_reason`:
 * - `risks_resolved`: it had risks, none is left;
 * - `no_risks_detected`: it never had any (or came back without any);
 * - `identity_deleted`: it is gone from the cluster (`deleted_at` is set too).
 *
 * @example
 *   const next = reconcileIdentity(previous, identity.risks.map((r) => r.fingerprint), now);
 */

export type ResolvedReason = 'risks_resolved' | 'no_risks_detected' | 'identity_deleted';

export interface RiskState {
  fingerprint: string;
  first_detected_at: string;
  last_detected_at: string;
  /** When the risk was last seen resolved; null while it is open. */
  deleted_at: string | null;
}

export interface IdentityState {
  status: 'open' | 'resolved';
  resolved_at: string | null;
  resolved_reason: ResolvedReason | null;
  deleted_at: string | null;
  /** Every risk ever detected, open and resolved, sorted by fingerprint. */
  risks: RiskState[];
}

/**
 * @param previous the stored state, null for an identity seen for the first time
 * @param current fingerprints of the risks detected now; null when the identity is gone
 */
export function reconcileIdentity(
  previous: IdentityState | null,
  current: readonly string[] | null,
  now: string,
): IdentityState {
  const detected = new Set(current ?? []);
  const risks = new Map<string, RiskState>();
  for (const risk of previous?.risks ?? []) {
    risks.set(
      risk.fingerprint,
      detected.has(risk.fingerprint)
        ? { ...risk, last_detected_at: now, deleted_at: null }
        : { ...risk, deleted_at: risk.deleted_at ?? now },
    );
  }
  for (const fingerprint of detected) {
    if (!risks.has(fingerprint)) {
      risks.set(fingerprint, {
        fingerprint,
        first_detected_at: now,
        last_detected_at: now,
        deleted_at: null,
      });
    }
  }
  const history = [...risks.values()].sort((a, b) =>
    a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0,
  );

  const alreadyResolved = previous?.status === 'resolved' ? previous : null;
  if (current === null) {
    return {
      status: 'resolved',
      resolved_at: alreadyResolved?.resolved_at ?? now,
      resolved_reason: alreadyResolved?.resolved_reason ?? 'identity_deleted',
      deleted_at: previous?.deleted_at ?? now,
      risks: history,
    };
  }
  if (detected.size > 0) {
    return { status: 'open', resolved_at: null, resolved_reason: null, deleted_at: null, risks: history };
  }
  const keep = alreadyResolved !== null && alreadyResolved.resolved_reason !== 'identity_deleted';
  return {
    status: 'resolved',
    resolved_at: keep ? alreadyResolved.resolved_at : now,
    resolved_reason: keep
      ? alreadyResolved.resolved_reason
      : previous?.status === 'open'
        ? 'risks_resolved'
        : 'no_risks_detected',
    deleted_at: null,
    risks: history,
  };
}
