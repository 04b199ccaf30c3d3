import type { Migration } from '../migrator.js';

/**
 * The engine's state of each workload container (runtime_workloads.state, a few hundred KiB of
 * JSON text) is rewritten whole by every runtime push that reaches the container, so the
 * compression of its TOAST value is paid on every push. lz4 costs PostgreSQL about half of the
 * default pglz's CPU for these values (docs/performance.md, "Runtime ingestion and the CSV
 * export"). Values already stored keep pglz until their next write; both read the same.
 *
 * A server built without lz4 (the embedded PGlite is one) refuses the method with
 * feature_not_supported: the column then keeps the default compression.
 */
export const runtimeStateCompression: Migration = {
  id: '0018-runtime-state-compression',
  sql: `
do $$
begin
  alter table runtime_workloads alter column state set compression lz4;
exception when feature_not_supported then
  null;
end
$$;
`,
};
