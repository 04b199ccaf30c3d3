/**
 * The diff between what the engine computed for a cluster now and what is stored: which identity
 * rows to rewrite, which only get fresher timestamps, which identities vanished, and which risks
 * are new, changed, still there or gone. Pure, so the lifecycle rules are unit-tested without a
 * database; reconcileIdentity (the engine) decides status and risk history.
 *
 * - `last_used_at` never goes back: a service account whose pods are gone was last used when they
 *   last ran, not "never".
 * - `last_detected_at` of an identity is the latest detection of any of its risks.
 * - A vanished identity keeps its last computed permissions (what it could do), loses its score
 *   (no open risk is left) and becomes resolved with reason `identity_deleted`.
 */
import {
  type ComputedIdentity,
  type IdentityState,
  type Risk,
  type RiskState,
  reconcileIdentity,
} from '../../engines/rbac/index.js';
import {
  type IdentityContent,
  identityContent,
  riskContentHash,
  type UpdatedAtByUid,
} from './identity-content.js';

export interface StoredIdentity {
  id: string;
  status: 'open' | 'resolved';
  resolved_at: string | null;
  resolved_reason: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  last_detected_at: string | null;
  content_hash: string;
  /** false for a row written before its API text was cached (migration 0016); absent = cached */
  json_cached?: boolean;
}

export interface StoredRisk {
  identity_id: string;
  id: string;
  fingerprint: string;
  first_detected_at: string;
  last_detected_at: string;
  deleted_at: string | null;
  content_hash: string;
  /** false for a row written before its API text was cached (migration 0025); absent = cached */
  text_cached?: boolean;
}

export interface Lifecycle {
  status: 'open' | 'resolved';
  resolved_at: string | null;
  resolved_reason: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  last_detected_at: string | null;
}

export interface IdentityUpsert {
  identity: ComputedIdentity;
  content: IdentityContent;
  lifecycle: Lifecycle;
}

export interface IdentityTouch {
  id: string;
  last_used_at: string | null;
  last_detected_at: string | null;
}

/** An unchanged identity stored without its API text: the text alone is written. */
export interface IdentityFill {
  id: string;
  content: IdentityContent;
}

export interface IdentityRemoval {
  id: string;
  lifecycle: Lifecycle;
}

export interface RiskUpsert {
  risk: Risk;
  first_detected_at: string;
  content_hash: string;
}

export interface RecomputePlan {
  upserts: IdentityUpsert[];
  touches: IdentityTouch[];
  fills: IdentityFill[];
  removals: IdentityRemoval[];
  /** new, reopened or changed risks: written whole, open, last detected now */
  riskUpserts: RiskUpsert[];
  /** open risks that are gone: deleted_at = now */
  riskResolutions: { identity_id: string; id: string }[];
}

export interface PlanContext {
  accountId: string;
  tenantId: string;
  now: string;
  updatedAt: UpdatedAtByUid;
}

const later = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : Date.parse(a) >= Date.parse(b) ? a : b;

function previousState(
  stored: StoredIdentity | undefined,
  risks: readonly StoredRisk[],
): IdentityState | null {
  if (stored === undefined) return null;
  return {
    status: stored.status,
    resolved_at: stored.resolved_at,
    resolved_reason: stored.resolved_reason as IdentityState['resolved_reason'],
    deleted_at: stored.deleted_at,
    risks: risks.map(
      (risk): RiskState => ({
        fingerprint: risk.fingerprint,
        first_detected_at: risk.first_detected_at,
        last_detected_at: risk.last_detected_at,
        deleted_at: risk.deleted_at,
      }),
    ),
  };
}

const latestDetection = (state: IdentityState): string | null =>
  state.risks.reduce<string | null>((latest, risk) => later(latest, risk.last_detected_at), null);

const sameStatus = (stored: StoredIdentity, state: IdentityState) =>
  stored.status === state.status &&
  stored.resolved_at === state.resolved_at &&
  stored.resolved_reason === state.resolved_reason &&
  stored.deleted_at === state.deleted_at;

/**
 * Plans the writes of one computed identity's risks (new, reopened, changed, resolved) and says
 * whether writeRisks (risk-store.ts) writes any of its risk rows: these, or the detection time of
 * an open risk moving to now.
 */
function planRisks(
  plan: RecomputePlan,
  identity: ComputedIdentity,
  state: IdentityState,
  previousRisks: readonly StoredRisk[],
  now: string,
): boolean {
  const upsertsBefore = plan.riskUpserts.length;
  const resolutionsBefore = plan.riskResolutions.length;
  const firstDetection = new Map(state.risks.map((risk) => [risk.fingerprint, risk.first_detected_at]));
  const before = new Map(previousRisks.map((risk) => [risk.id, risk]));
  const current = new Set<string>();
  for (const risk of identity.risks) {
    current.add(risk.id);
    const hash = riskContentHash(risk);
    const known = before.get(risk.id);
    // An open risk without its text (written before 0025) is written again with it: the same
    // row the push leaves it as (detected now, first detection kept), plus head_json.
    if (
      known === undefined ||
      known.deleted_at !== null ||
      known.content_hash !== hash ||
      known.text_cached === false
    ) {
      plan.riskUpserts.push({
        risk,
        first_detected_at: firstDetection.get(risk.fingerprint) ?? now,
        content_hash: hash,
      });
    }
  }
  let detectionMoves = false;
  for (const risk of previousRisks) {
    if (risk.deleted_at !== null) continue;
    if (!current.has(risk.id)) plan.riskResolutions.push({ identity_id: identity.id, id: risk.id });
    // As text: the recompute writes every detection time from toISOString (milliseconds), so the
    // same text is the same stored instant.
    else if (risk.last_detected_at !== now) detectionMoves = true;
  }
  return (
    detectionMoves ||
    plan.riskUpserts.length > upsertsBefore ||
    plan.riskResolutions.length > resolutionsBefore
  );
}

export function planRecompute(
  computed: readonly ComputedIdentity[],
  stored: ReadonlyMap<string, StoredIdentity>,
  storedRisks: ReadonlyMap<string, readonly StoredRisk[]>,
  context: PlanContext,
): RecomputePlan {
  const plan: RecomputePlan = {
    upserts: [],
    touches: [],
    fills: [],
    removals: [],
    riskUpserts: [],
    riskResolutions: [],
  };
  const { now } = context;

  for (const identity of computed) {
    const previous = stored.get(identity.id);
    const previousRisks = storedRisks.get(identity.id) ?? [];
    const state = reconcileIdentity(
      previousState(previous, previousRisks),
      identity.risks.map((risk) => risk.fingerprint),
      now,
    );
    const content = identityContent(identity, context);
    const lastUsedAt = later(previous?.last_used_at ?? null, identity.last_used_at);
    const lastDetectedAt = latestDetection(state);
    const risksWritten = planRisks(plan, identity, state, previousRisks, now);
    if (previous === undefined || previous.content_hash !== content.hash || !sameStatus(previous, state)) {
      plan.upserts.push({
        identity,
        content,
        lifecycle: {
          status: state.status,
          resolved_at: state.resolved_at,
          resolved_reason: state.resolved_reason,
          deleted_at: state.deleted_at,
          created_at: previous?.created_at ?? now,
          updated_at: now,
          last_used_at: lastUsedAt,
          last_detected_at: lastDetectedAt,
        },
      });
    } else {
      // An identity whose risks are written is written too, even with the same times: its row's
      // version (xmin) is then the version of its whole API text, risks included (repository.ts,
      // TEXT_VERSION).
      if (
        risksWritten ||
        previous.last_used_at !== lastUsedAt ||
        previous.last_detected_at !== lastDetectedAt
      ) {
        plan.touches.push({ id: identity.id, last_used_at: lastUsedAt, last_detected_at: lastDetectedAt });
      }
      if (previous.json_cached === false) plan.fills.push({ id: identity.id, content });
    }
  }

  const present = new Set(computed.map((identity) => identity.id));
  for (const previous of stored.values()) {
    if (present.has(previous.id) || previous.deleted_at !== null) continue;
    const previousRisks = storedRisks.get(previous.id) ?? [];
    const state = reconcileIdentity(previousState(previous, previousRisks), null, now);
    plan.removals.push({
      id: previous.id,
      lifecycle: {
        status: state.status,
        resolved_at: state.resolved_at,
        resolved_reason: state.resolved_reason,
        deleted_at: state.deleted_at,
        created_at: previous.created_at,
        updated_at: now,
        last_used_at: previous.last_used_at,
        last_detected_at: latestDetection(state),
      },
    });
    for (const risk of previousRisks) {
      if (risk.deleted_at === null) plan.riskResolutions.push({ identity_id: previous.id, id: risk.id });
    }
  }
  return plan;
}
