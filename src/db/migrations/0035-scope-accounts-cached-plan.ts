import type { Migration } from '../migrator.js';

/**
 * The row-level security policies' account list (migration 0011) computed by a PL/pgSQL function
 * instead of an SQL one, with the same query and the same result (docs/performance.md, "Fix 17c").
 *
 * Every reference to an account-owned table in a statement carries the policy's InitPlan
 * `(select posture_scope_account_ids())`, run once per statement. The SQL function is not
 * inlinable (its body reads `accounts`), so each of those runs went through fmgr_sql, which
 * parses, analyzes and plans the body again for every statement that calls it: 0.1 to 0.3 ms of
 * the backend's CPU per table reference, about a third of a one-row lookup's CPU under the
 * application's role, and 7% of PostgreSQL's CPU during a medium scan phase (a scan push writes
 * and reads a dozen account-owned tables in about thirty statements). PL/pgSQL keeps the plan of
 * its query for the session, so a call costs the query's execution only.
 *
 * Same volatility (stable: the calling statement's snapshot), same parallel safety, same rule:
 * the scope's accounts that belong to the scope's tenant. The policies themselves are unchanged.
 */
export const scopeAccountsCachedPlan: Migration = {
  id: '0035-scope-accounts-cached-plan',
  sql: `
create or replace function posture_scope_account_ids() returns uuid[]
  language plpgsql stable parallel safe
  as $fn$
begin
  return (
    select coalesce(array_agg(a.id), '{}') from accounts a
     where a.tenant_id = nullif(current_setting('posture.tenant_id', true), '')::uuid
       and (coalesce(current_setting('posture.account_ids', true), '') = '*'
            or a.id = any (nullif(nullif(current_setting('posture.account_ids', true), ''), '*')::uuid[])));
end
$fn$;
`,
};
