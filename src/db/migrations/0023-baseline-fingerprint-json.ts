import type { Migration } from '../migrator.js';

/**
 * Each baseline's fingerprint as the API serializes it (docs/performance.md, "Fix 13"). A page of
 * 50 baselines is ~0.5 MB; the server spent most of its CPU parsing the stored jsonb and
 * serializing it again through the response schema. A baseline is written once, when its learning
 * window closes, so its text is rendered then, in the same insert (fingerprint-json.ts).
 *
 * Rows written before this migration keep NULL and are answered the old way. Nothing is
 * backfilled here, because the text is the API's serialization, which is code, not SQL.
 */
export const baselineFingerprintJson: Migration = {
  id: '0023-baseline-fingerprint-json',
  sql: `
alter table runtime_baselines add column fingerprint_json text;
`,
};
