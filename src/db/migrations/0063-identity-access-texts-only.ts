import type { Migration } from '../migrator.js';

/**
 * An identity written by the recompute keeps its access only as the API's text
 * (`assigned_roles_json` and `access_json`, migration 0016); `rbac_objects` is left null
 * (docs/performance.md, "Fix 67").
 *
 * Since 0016 the recompute wrote each identity's access twice in one row: as the jsonb the reads
 * of older rows serialize, and as the text every read of a newer row splices in. The jsonb was
 * about 7 KB of JSON an identity, which PostgreSQL parsed into its binary form and compressed on
 * every write: about 44 µs of a 64 µs identity insert, measured on a copy of the benchmark's
 * identities. During a large cluster's first load each List of bindings rewrites some 2,900
 * identities, so that parse was a twentieth of PostgreSQL's CPU there.
 *
 * - Rows written before 0016 (texts null) keep their jsonb, and are read through it until a
 *   recompute writes their texts; the text-filling update then clears it too.
 * - The access-control endpoints read a subject identity's assigned roles and graph from the
 *   texts, and from the jsonb only for such older rows (rbac/repository.ts).
 *
 * Only the constraint changes: the catalog, no table rewrite. Existing rows keep their jsonb until
 * their next write. The statement may run again.
 */
export const identityAccessTextsOnly: Migration = {
  id: '0063-identity-access-texts-only',
  sql: `
alter table identities alter column rbac_objects drop not null;
`,
};
