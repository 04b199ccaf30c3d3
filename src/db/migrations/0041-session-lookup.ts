import type { Migration } from '../migrator.js';

/**
 * The session lookup of the auth hook (a token not seen in the last second: docs/auth.md,
 * "Session cache") as a PL/pgSQL function, planned once per connection like the login's write
 * (migration 0040, docs/performance.md "Fix 5", "Third pass"). Sent as SQL text, the statement (the
 * session, its key, its user, the user's role assignments, with the row-level security policies of
 * four tables) took about 0.6 ms of PostgreSQL's CPU to plan and 0.1 ms to run, on every lookup:
 * once a second for each token in use, and for every request of a client whose requests are more
 * than a second apart.
 *
 * The same statement, in the caller's transaction and as the caller (SECURITY INVOKER: row-level
 * security applies as before; the auth hook calls it in the system scope).
 */
export const sessionLookup: Migration = {
  id: '0041-session-lookup',
  sql: `
create function posture_session(p_token_hash bytea)
  returns table (
    user_id uuid, tenant_id uuid, access_key_id text, key_scope text, key_account_id uuid,
    expired boolean, usable boolean, valid_for_ms double precision, assignments json
  )
  language plpgsql stable
  as $fn$
#variable_conflict use_column
begin
  return query
  select s.user_id, s.tenant_id, s.access_key_id, k.scope, k.account_id,
         s.expires_at <= now(),
         (k.revoked_at is null and (k.expires_at is null or k.expires_at > now()) and not u.locked),
         (extract(epoch from least(s.expires_at, k.expires_at) - now()) * 1000)::float8,
         coalesce((select json_agg(json_build_object('level', r.level, 'account_id', r.account_id, 'role', r.role))
                     from role_assignments r where r.user_id = s.user_id), '[]'::json)
    from sessions s
    join access_keys k on k.id = s.access_key_id
    join users u on u.id = s.user_id
   where s.token_hash = p_token_hash;
end
$fn$;
`,
};
