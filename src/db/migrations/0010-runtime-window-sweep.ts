import type { Migration } from '../migrator.js';

/**
 * The learning-window sweep (src/modules/runtime/window-sweep.ts) looks, per account, for workload
 * containers still learning whose window has passed on the wall clock. Only learning rows are
 * indexed (captured ones are the vast majority and never looked at again), by first event time, so
 * each account's due rows are one range scan: account_id leads, as in every index (DESIGN.md 8).
 */
export const runtimeWindowSweep: Migration = {
  id: '0010-runtime-window-sweep',
  sql: `
create index runtime_workloads_learning
  on runtime_workloads (account_id, first_event_at, id)
  where baseline_captured_at is null;
`,
};
