import type { Migration } from '../migrator.js';

/**
 * A digest of each inventory container row's served values, so a pod's new version sends
 * PostgreSQL only the rows it changes (docs/performance.md, "Fix 64").
 *
 * A pod's new version rewrote every row of the containers it still runs when one of their values
 * differed, and PostgreSQL made that comparison: every row of the push went over the wire as 24
 * array parameters, was unnested and joined to its stored row by key. In the large benchmark's
 * Kubernetes phase that was 1.4 million rows, of which none differed (a pod's later versions there
 * change its restart count and IP, which no container row holds): 14 s of PostgreSQL, besides the
 * server building the arrays. Ingestion now reads each stored row's digest with the row
 * (inventory-store.ts, `findContainersOfPods`), computes the digest of the values it would write,
 * and writes only the rows whose digests differ.
 *
 * - `values_digest` is what the writer that last wrote the row's values computed from them
 *   (`containerValuesDigest` in src/ingest/kubernetes/inventory-store.ts); null when unknown:
 *   rows stored before this migration, and any row whose values an update changed without naming
 *   a new digest.
 * - The BEFORE UPDATE trigger is what makes "unknown" hold: an update that leaves the digest as
 *   it was (the owner re-resolution's update, a server of the previous build beside this schema,
 *   an operator's statement) clears it, so a digest can never vouch for values it was not
 *   computed from. A cleared digest costs one rewrite of the row at its pod's next version.
 *
 * Adding a nullable column without a default changes only the catalog. Every statement may run
 * again.
 */
export const containerValuesDigest: Migration = {
  id: '0062-container-values-digest',
  sql: `
alter table inventory_containers add column if not exists values_digest text;

create or replace function inventory_containers_digest_cleared() returns trigger
  language plpgsql
  set search_path = pg_catalog, public
  as $fn$
begin
  new.values_digest := null;
  return new;
end
$fn$;

drop trigger if exists values_digest_cleared on inventory_containers;
create trigger values_digest_cleared before update on inventory_containers
  for each row
  when (old.values_digest is not null and new.values_digest is not distinct from old.values_digest)
  execute function inventory_containers_digest_cleared();
`,
};
