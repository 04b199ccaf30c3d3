import type { Migration } from '../migrator.js';

/**
 * Identities filtered by risk level (`risk_levels=High,Critical`, the filter a security team
 * starts from), counted and paged from an index (docs/performance.md, "Fix 24").
 *
 * A filtered list has no kept total, so its `total_count` counts the matching rows. No index held
 * risk_level, and identity rows are wide (their risks summary and cached access text, about 1.5 KB
 * and more each), so the count read every identity of the account: 6.7 ms of PostgreSQL at medium,
 * and the large run's filter case grew 3.5 times from small to large. With the level after
 * account_id, the count is a range of the index (0.25 ms at medium), and a one-level filter's
 * default sort (risk_score descending) is read in order from it. The other identity filters are
 * not indexed: type, status and usage each have a handful of values that most identities share,
 * where an index would not beat the scan.
 */
export const identityRiskLevelIndex: Migration = {
  id: '0046-identity-risk-level-index',
  sql: `
create index identities_risk_level on identities (account_id, risk_level, risk_score, id);
`,
};
