import type { Migration } from '../migrator.js';

/**
 * Each identity's access as the API serializes it (docs/performance.md, "Fix 6"): a page of
 * identities is ~14 KB each, and the server spent most of a page parsing the stored rbac_objects
 * jsonb and serializing it again through the response schema. The recompute now writes, in the
 * same row and statement as rbac_objects:
 *
 * - assigned_roles_json: `rbac_objects.assigned_roles` exactly as the API returns it;
 * - access_json: `{"graph":...,"permissions":...}`, the rest of rbac_objects but its
 *   `created_at`, which is the row's updated_at and is spliced in at read time (a removal moves
 *   it without rewriting the access).
 *
 * Rows written before this migration keep both NULL: reads serialize them the old way, and the
 * next recompute that sees the identity fills them (docs/identities-api.md, "Storage"). Nothing
 * is backfilled here, because the text is the API's serialization, which is code, not SQL.
 */
export const identityJson: Migration = {
  id: '0016-identity-json',
  sql: `
alter table identities add column assigned_roles_json text;
alter table identities add column access_json text;
`,
};
