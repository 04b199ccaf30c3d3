import type { Migration } from '../migrator.js';

/**
 * Row-level security: the second wall behind the services' own scoping (docs/security.md,
 * "Row-level security"). Every statement of the application sets three transaction-local
 * settings (src/db/scope.ts); the policies compare each row to them:
 *
 * - a table with a NOT NULL account_id is account-owned: visible and writable when its account is
 *   one of the scope's accounts, each checked to belong to the scope's tenant (so a forged account
 *   list cannot cross tenants);
 * - any other table with a tenant_id (accounts, users, keys, sessions, role assignments,
 *   integrations, knowledge-base collections) is tenant-owned: visible when tenant_id is the
 *   scope's tenant; tenants itself by its id;
 * - the system scope (workers, imports, authentication's key lookup, the CLI) sees everything;
 * - no scope sees nothing and writes nothing (fail closed).
 *
 * Tables with neither column (feed catalogs: epss_scores, kev_entries, feed_imports;
 * schema_migrations) are global and stay without policies.
 *
 * The policies are generated from the catalog by posture_apply_row_level_security(), which the
 * migrator calls again after every later migration: a table added tomorrow with an account_id is
 * covered without anyone remembering to. The settings, and the scope's account ids (one query on
 * accounts), are read through scalar subqueries so the planner evaluates them once per statement
 * (an InitPlan), not per row; the per-row check is `account_id = any(<array>)`. The queries keep
 * their index plans, driven by their own account_id = $1 (docs/security.md has the EXPLAIN figures;
 * an uncorrelated `account_id in (select ...)` measured 2.5x slower on a 100,000-row count).
 *
 * FORCE ROW LEVEL SECURITY is not set: the owner (the migrator's role) is not subject to the
 * policies, so migrations and backfills see every row; the application connects as another role,
 * which the server checks at boot (src/db/app-role.ts).
 */
export const rowLevelSecurity: Migration = {
  id: '0011-row-level-security',
  sql: `
create or replace function posture_scope_system() returns boolean
  language sql stable parallel safe
  as $$ select coalesce(current_setting('posture.system', true), '') = 'on' $$;

create or replace function posture_scope_tenant() returns uuid
  language sql stable parallel safe
  as $$ select nullif(current_setting('posture.tenant_id', true), '')::uuid $$;

-- The scope's accounts, each checked to belong to the scope's tenant (so a forged list cannot cross
-- tenants): every account of the tenant for '*', else those of the list. One query per statement.
create or replace function posture_scope_account_ids() returns uuid[]
  language sql stable parallel safe
  as $$
    select coalesce(array_agg(a.id), '{}') from accounts a
     where a.tenant_id = nullif(current_setting('posture.tenant_id', true), '')::uuid
       and (coalesce(current_setting('posture.account_ids', true), '') = '*'
            or a.id = any (nullif(nullif(current_setting('posture.account_ids', true), ''), '*')::uuid[]))
  $$;

create or replace function posture_apply_row_level_security() returns void
  language plpgsql
  as $fn$
declare
  t record;
  account_scoped constant text :=
    'account_id = any ((select posture_scope_account_ids())::uuid[]) or (select posture_scope_system())';
  tenant_scoped constant text := 'tenant_id = (select posture_scope_tenant()) or (select posture_scope_system())';
  expression text;
begin
  for t in
    select c.relname,
           exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id'
                     and a.attnotnull and not a.attisdropped) as has_account,
           exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id'
                     and not a.attisdropped) as has_tenant
      from pg_class c
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
  loop
    if t.relname = 'tenants' then
      expression := 'id = (select posture_scope_tenant()) or (select posture_scope_system())';
    elsif t.has_account then
      expression := account_scoped;
    elsif t.has_tenant then
      expression := tenant_scoped;
    else
      continue;
    end if;
    execute format('alter table %I enable row level security', t.relname);
    execute format('drop policy if exists posture_scope on %I', t.relname);
    execute format('create policy posture_scope on %I using (%s) with check (%s)',
                   t.relname, expression, expression);
  end loop;
end
$fn$;

select posture_apply_row_level_security();
`,
};
