import type { Migration } from '../migrator.js';

/**
 * Each risk's API JSON as text, written in the same upsert as the risk (docs/performance.md,
 * "Fix 16a"): an identities page of 50 identities carries about 1,000 risks, and reading each as a
 * row of three timestamps and a jsonb, then mapping and serializing it, was the largest part of
 * the server's work per page.
 *
 * head_json is the risk's JSON object up to, and without, its detection times and closing brace:
 * `{"id":...,"associated_resources":[...]`. The times (first_detected_at, last_detected_at,
 * deleted_at) are the object's last fields and move without the rest of the risk (every push marks
 * the open risks detected, a resolution sets deleted_at), so reads append them from their columns.
 *
 * Rows written before this migration keep it NULL and are read the old way; the next recompute
 * that computes the risk open rewrites it with its text (plan.ts). Nothing is backfilled here,
 * because the text is the API's serialization, which is code, not SQL.
 */
export const identityRiskJson: Migration = {
  id: '0025-identity-risk-json',
  sql: `
alter table identity_risks add column head_json text;
`,
};
