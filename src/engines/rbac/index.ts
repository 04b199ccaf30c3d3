/**
 * The RBAC identity engine (issue 5): pure functions from Kubernetes objects to identities,
 * risks, scores and the identities report. No I/O; docs/identity-risk.md explains the rules.
 *
 * - computeIdentities({ clusterId, clusterName, objects, now }) -> { identities, warnings }
 * - prepareIdentities(same input) -> { ids, compute(ids), warnings }: a part of the identities at a time
 * - buildIdentitiesReport(identities, now) -> the #18 report counts; tallyIdentities and
 *   reportFromTallies: the same, added up from one tally per cluster
 * - reconcileIdentity(previousState, fingerprintsNow, now) -> status and risk history to store
 */
export {
  type ComputeIdentitiesInput,
  type ComputeIdentitiesResult,
  computeIdentities,
  type PreparedIdentities,
  prepareIdentities,
  SOURCE_TYPE,
} from './engine.js';
export { identityId, rbacObjectId, stableId } from './ids.js';
export { type IdentityState, type ResolvedReason, type RiskState, reconcileIdentity } from './lifecycle.js';
export {
  buildIdentitiesReport,
  IDENTITY_TYPES,
  type IdentitiesReport,
  type IdentitiesTally,
  type ReportIdentity,
  RISK_LEVELS,
  reportFromTallies,
  tallyIdentities,
} from './report.js';
export { RISK_RULES, RISK_RULES_BY_TYPE, type RiskRule, RULESET_VERSION } from './risk-rules.js';
export { LEVEL_THRESHOLDS, MAX_WEIGHT, riskLevelOf, severityOf } from './scoring.js';
export type * from './types.js';
