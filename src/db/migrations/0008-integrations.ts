import type { Migration } from '../migrator.js';

/**
 * Configured third-party integrations and the outbox/delivery log of their webhook deliveries.
 * Both are tenant-owned (integrations are tenant settings, not account data), so tenant_id leads
 * every key and index. Secret config values never sit in `config`: they are sealed together with
 * AES-256-GCM into `sealed_secrets` (src/modules/integrations/secret-box.ts).
 */
export const integrations: Migration = {
  id: '0008-integrations',
  sql: `
create table integrations (
  tenant_id uuid not null references tenants (id),
  id uuid not null,
  type text not null,
  name text not null,
  config jsonb not null,
  sealed_secrets bytea,
  secret_keys text[] not null default '{}',
  created_by uuid references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create unique index integrations_name on integrations (tenant_id, name);
create index integrations_order on integrations (tenant_id, created_at, id);
create index integrations_type on integrations (tenant_id, type, id);

-- One row per (integration, event): written inside the transaction that produced the event, sent
-- afterwards by the delivery worker. The row is also the delivery log.
create table integration_deliveries (
  tenant_id uuid not null,
  id uuid not null,
  integration_id uuid not null,
  account_id uuid not null,
  event text not null,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_attempt_at timestamptz,
  last_error text,
  response_status integer,
  signature text,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, integration_id) references integrations (tenant_id, id) on delete cascade
);
create index integration_deliveries_log on integration_deliveries (tenant_id, integration_id, created_at, id);
-- The worker's queue: only pending rows are indexed, so the index stays as small as the backlog.
create index integration_deliveries_due on integration_deliveries (next_attempt_at) where status = 'pending';
`,
};
