import type { Migration } from '../migrator.js';

/**
 * Room on inventory_containers' pages for every row's next version (docs/performance.md,
 * "Fix 16c"). A pod's new version updates its container rows in place (Fix 14), and the update
 * is heap-only (no entry in any of the 14 indexes) only when the new row version fits on the
 * row's page. The old versions stay until the push commits, so a push that rewrites every pod of
 * a page needs as much free space as the page holds rows: at fillfactor 70 (migration 0024) that
 * was about 3 rows in 7, and 55% of the updates of a cluster's second pod versions went to a new
 * page and through every index. At 50 each page keeps room for a new version of each of its rows.
 * The table takes about 1.4 times the space of fillfactor 70 for it. Applies to pages filled from
 * now on, as 0024 did.
 */
export const inventoryUpdateRoom: Migration = {
  id: '0027-inventory-update-room',
  sql: `
alter table inventory_containers set (fillfactor = 50);
`,
};
