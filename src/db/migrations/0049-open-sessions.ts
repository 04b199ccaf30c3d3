import type { Migration } from '../migrator.js';

/**
 * The logins' writes in groups (docs/performance.md, "Fix 30"): `posture_open_session` (0040) for
 * any number of logins in one statement, one plan and one commit. Logins that arrive while a
 * group is being written wait for the next one (src/modules/auth/session-writer.ts), so under
 * concurrent logins PostgreSQL's per-statement work (the call, the executor's start, the scope's
 * settings, the commit and its WAL flush) is paid once per group instead of once per login.
 *
 * The rules are 0040's, per login: a session is written only for a key that is, at that moment,
 * not revoked, not expired, with its user not locked, and with the id, user and tenant the caller
 * names; the users' last_login_at and the keys' last_used_at move at most once a second, and only
 * for logins whose session was written. Returns the hex SHA-256 of the tokens whose session was
 * written (the caller's own token hashes, hex so that both engines pass them as text).
 *
 * As the caller (SECURITY INVOKER): row-level security applies, and the login runs in the system
 * scope. A lone login still calls posture_open_session, which costs 10 to 20% less for one
 * (insertSessions in src/modules/auth/repository.ts).
 */
export const openSessions: Migration = {
  id: '0049-open-sessions',
  sql: `
create function posture_open_sessions(
  p_token_hashes text[], p_key_ids text[], p_user_ids uuid[], p_tenant_ids uuid[], p_expires_at timestamptz[]
) returns setof text
  language plpgsql volatile
  as $fn$
begin
  return query
  with written as (
    insert into sessions (token_hash, access_key_id, user_id, tenant_id, expires_at)
    select decode(t.token_hash, 'hex'), k.id, k.user_id, k.tenant_id, t.expires_at
      from unnest(p_token_hashes, p_key_ids, p_user_ids, p_tenant_ids, p_expires_at)
             as t (token_hash, key_id, user_id, tenant_id, expires_at)
      join access_keys k on k.id = t.key_id and k.user_id = t.user_id and k.tenant_id = t.tenant_id
      join users u on u.id = k.user_id
     where k.revoked_at is null and (k.expires_at is null or k.expires_at > now()) and not u.locked
    returning token_hash, access_key_id, user_id
  ), users_seen as (
    update users set last_login_at = now()
     where id in (select user_id from written)
       and (last_login_at is null or last_login_at < now() - interval '1 second')
  ), keys_used as (
    update access_keys set last_used_at = now()
     where id in (select access_key_id from written)
       and (last_used_at is null or last_used_at < now() - interval '1 second')
  )
  select encode(token_hash, 'hex') from written;
end
$fn$;
`,
};
