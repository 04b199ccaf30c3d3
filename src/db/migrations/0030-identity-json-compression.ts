import type { Migration } from '../migrator.js';

/**
 * An identity row carries about 14 KB of JSON (rbac_objects and its API text, the assigned
 * roles' text), which PostgreSQL compresses into TOAST on every write: a push of bindings that
 * rewrites most identities of a cluster spent a few percent of PostgreSQL's CPU in pglz alone
 * (docs/performance.md, "Fix 17e"). lz4 compresses these values several times faster, and reads
 * them back faster too. Values already stored keep pglz until their next write; both read the
 * same.
 *
 * A server built without lz4 (the embedded PGlite is one) refuses the method with
 * feature_not_supported: the columns then keep the default compression (as in 0018).
 */
export const identityJsonCompression: Migration = {
  id: '0030-identity-json-compression',
  sql: `
do $$
begin
  alter table identities
    alter column rbac_objects set compression lz4,
    alter column access_json set compression lz4,
    alter column assigned_roles_json set compression lz4;
exception when feature_not_supported then
  null;
end
$$;
`,
};
