import type { Migration } from '../migrator.js';

/**
 * A login's write as a PL/pgSQL function, so its statements are planned once per connection
 * (docs/performance.md, "Fix 5", "Third pass"). The session insert with its audit fields was one statement of
 * four CTEs, sent as SQL text: PostgreSQL parsed, analyzed and planned it on every login, with the
 * row-level security policies of three tables expanded into it. Under the authenticate load that
 * was about 60% of the backend's CPU per login (a perf profile of the backends: the CTEs' planning
 * 42%, parsing and analysis 16%), and inside PGlite, where the engine runs in the server's process,
 * the same work in WebAssembly. PL/pgSQL prepares each of its statements on first use in a session
 * and keeps the plans; the client's own statement (`select posture_open_session(...)`) is trivial
 * to plan.
 *
 * It does what the statement did, in the caller's transaction and as the caller (SECURITY
 * INVOKER, so row-level security applies as before):
 * - the session is written only for a key that is, at that moment, not revoked, not expired, with
 *   its user not locked, and with the id, user and tenant the caller names (a key remembered by
 *   the login key cache must still be that key); false when nothing was written;
 * - the user's last_login_at and the key's last_used_at move at most once a second, and only
 *   after a session was written (docs/auth.md).
 */
export const openSession: Migration = {
  id: '0040-open-session',
  sql: `
create function posture_open_session(
  p_token_hash bytea, p_key_id text, p_user_id uuid, p_tenant_id uuid, p_expires_at timestamptz
) returns boolean
  language plpgsql volatile
  as $fn$
begin
  insert into sessions (token_hash, access_key_id, user_id, tenant_id, expires_at)
  select p_token_hash, k.id, k.user_id, k.tenant_id, p_expires_at
    from access_keys k join users u on u.id = k.user_id
   where k.id = p_key_id and k.user_id = p_user_id and k.tenant_id = p_tenant_id
     and k.revoked_at is null and (k.expires_at is null or k.expires_at > now()) and not u.locked;
  if not found then
    return false;
  end if;
  update users set last_login_at = now()
   where id = p_user_id and (last_login_at is null or last_login_at < now() - interval '1 second');
  update access_keys set last_used_at = now()
   where id = p_key_id and (last_used_at is null or last_used_at < now() - interval '1 second');
  return true;
end
$fn$;
`,
};
