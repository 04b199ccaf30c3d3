import type { Migration } from '../migrator.js';

/**
 * The identities' name index carries their namespace too, so that `q` on the identities list
 * (`name ilike $p or namespace ilike $p`, modules/identities/repository.ts) is counted from the
 * index alone (docs/performance.md, "Fix 42").
 *
 * A `%phrase%` match can use no btree, so `total_count` of a searched page tested every identity
 * of the account. The matched columns were read from the heap: identity rows are wide (their
 * risks, roles and access as JSON, about 4.7 KB a row on the heap of the medium run), and the
 * medium account's 5,458 identities spread over 3,563 pages, 7 ms a count on PostgreSQL. With the
 * namespace in the index's leaf entries, an index-only scan applies the same filter to 48 pages:
 * 2.3 ms. The row-level security policy's condition is on account_id, a key of the index, so the
 * application role's scans take the same path.
 *
 * The key columns are those of 0004's index, so every page sorted by name reads it as before; it is
 * rebuilt under its own name.
 */
export const identityNameNamespaceIndex: Migration = {
  id: '0052-identity-name-namespace-index',
  sql: `
create index identities_name_namespace on identities (account_id, name, id) include (namespace);
drop index identities_name;
alter index identities_name_namespace rename to identities_name;
`,
};
