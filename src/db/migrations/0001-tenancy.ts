import type { Migration } from '../migrator.js';

/**
 * Tenancy and authentication. Tenants, users, keys and sessions are tenant-wide reference tables;
 * account-owned tables of later migrations lead every key and index with account_id (DESIGN.md 8).
 */
export const tenancy: Migration = {
  id: '0001-tenancy',
  sql: `
create table tenants (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null default now()
);

create table accounts (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  name text not null,
  created_at timestamptz not null default now(),
  unique (tenant_id, name)
);

create table users (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  name text not null,
  email text,
  locked boolean not null default false,
  last_login_at timestamptz,
  created_at timestamptz not null default now(),
  unique (tenant_id, name)
);

-- level 'tenant' covers every account of the tenant (account_id null); level 'account' one account.
create table role_assignments (
  tenant_id uuid not null references tenants (id),
  user_id uuid not null references users (id) on delete cascade,
  level text not null check (level in ('tenant', 'account')),
  account_id uuid references accounts (id) on delete cascade,
  role text not null check (role in ('admin', 'editor', 'viewer')),
  created_at timestamptz not null default now(),
  check ((level = 'tenant') = (account_id is null))
);
create unique index role_assignments_unique
  on role_assignments (user_id, level, coalesce(account_id, tenant_id), role);
create index role_assignments_tenant on role_assignments (tenant_id, role, level);
create index role_assignments_account on role_assignments (account_id, user_id);

-- The secret is never stored: only its HMAC-SHA256 under the server pepper.
create table access_keys (
  id text primary key,
  tenant_id uuid not null references tenants (id),
  user_id uuid not null references users (id),
  name text not null,
  scope text not null check (scope in ('tenant', 'account')),
  account_id uuid references accounts (id),
  secret_hash bytea not null,
  created_at timestamptz not null default now(),
  created_by uuid references users (id),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz,
  check ((scope = 'tenant') = (account_id is null))
);
create index access_keys_tenant on access_keys (tenant_id, created_at, id);
create index access_keys_user on access_keys (user_id);

-- Session tokens are stored as SHA-256 hashes; expired rows are kept for a day so a client can be
-- told token_expired rather than unauthenticated.
create table sessions (
  token_hash bytea primary key,
  access_key_id text not null references access_keys (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  tenant_id uuid not null references tenants (id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_access_key on sessions (access_key_id);
create index sessions_expires on sessions (expires_at);
`,
};
