import type { Migration } from '../migrator.js';

/**
 * Room on inventory_containers' pages for a row's next version (docs/performance.md, "Fix 14").
 * A pod's new version rewrites its container rows in place, usually changing only
 * pod_resource_id, which no index holds: PostgreSQL then keeps the new row version on the same
 * page and adds nothing to the 14 indexes (a heap-only update), but only if that page has free
 * space. At the default fillfactor of 100 the pages are full from the first insert, so every
 * such update would move the row and insert into every index, as the delete and insert it
 * replaces did. The setting applies to pages filled from now on; existing pages gain room as
 * their rows are updated or deleted and vacuumed.
 */
export const inventoryFillfactor: Migration = {
  id: '0024-inventory-fillfactor',
  sql: `
alter table inventory_containers set (fillfactor = 70);
`,
};
