import type { Migration } from '../migrator.js';

/**
 * A version of each workload container's runtime state, new at every write of its row, so a
 * server can keep the states it parsed between pushes and read back only those another writer
 * changed (modules/runtime/state-cache.ts, docs/performance.md "Fix 20").
 *
 * A runtime push used to read every state it advanced (about 200 KiB of JSON per container),
 * parse it, advance it and write it back: the read and the parse were a tenth of the server's CPU
 * per event. The version makes the kept copy checkable in the same statement that reads the
 * states: the server sends the version it holds and gets the state only when the row's differs.
 *
 * Versions come from a sequence, so they are never reused: not after a rollback, nor after a row
 * is deleted and written again with the same id. The trigger, not the writers, sets them, so any
 * writer (a push, the learning-window sweep, a statement typed by hand) invalidates kept copies.
 * Adding a column with a volatile default rewrites the table once.
 */
export const runtimeStateVersion: Migration = {
  id: '0043-runtime-state-version',
  sql: `
create sequence runtime_workload_state_versions;

alter table runtime_workloads
  add column state_version bigint not null default nextval('runtime_workload_state_versions');

create function runtime_workloads_next_state_version() returns trigger language plpgsql as $$
begin
  new.state_version := nextval('runtime_workload_state_versions');
  return new;
end
$$;

create trigger runtime_workloads_state_version before insert or update on runtime_workloads
  for each row execute function runtime_workloads_next_state_version();
`,
};
