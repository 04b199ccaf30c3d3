import type { Migration } from '../migrator.js';

/**
 * Knowledge-base collections: named per tenant (the name is the key, unique in the tenant), either
 * tenant-wide (account_id null) or belonging to one account, which the account-narrowed path
 * /tenants/{tenant_id}/accounts/{account_id}/knowledge_base/collections lists. Names sort bytewise
 * (collation C), the same on every server whatever its locale, and the primary key serves that order.
 */
export const knowledgeBase: Migration = {
  id: '0009-knowledge-base',
  sql: `
create table knowledge_base_collections (
  tenant_id uuid not null references tenants (id),
  name text collate "C" not null,
  account_id uuid references accounts (id) on delete cascade,
  created_by uuid references users (id),
  created_at timestamptz not null default now(),
  primary key (tenant_id, name)
);
create index knowledge_base_collections_account on knowledge_base_collections (tenant_id, account_id, name);
`,
};
