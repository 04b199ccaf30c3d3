import type { Migration } from '../migrator.js';

/** Tenant names identify tenants to operators (CLI, logs): two tenants may not share one. */
export const tenantNames: Migration = {
  id: '0006-tenant-names',
  sql: `create unique index tenants_name on tenants (name);`,
};
