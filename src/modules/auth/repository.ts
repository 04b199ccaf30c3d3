import type { Executor } from '../../db/database.js';
import type { Level, Role } from '../../http/actor.js';

export interface KeyForLogin {
  id: string;
  user_id: string;
  tenant_id: string;
  secret_hash: Buffer;
  usable: boolean;
}

export async function findKeyForLogin(db: Executor, accessKeyId: string): Promise<KeyForLogin | undefined> {
  const { rows } = await db.query<KeyForLogin>(
    `select k.id, k.user_id, k.tenant_id, k.secret_hash,
            (k.revoked_at is null and (k.expires_at is null or k.expires_at > now()) and not u.locked) as usable
       from access_keys k join users u on u.id = k.user_id
      where k.id = $1`,
    [accessKeyId],
  );
  const row = rows[0];
  return row ? { ...row, secret_hash: Buffer.from(row.secret_hash) } : undefined;
}

/**
 * The session and the login's audit fields (the user's last_login_at, the key's last_used_at) in
 * one statement: one round trip, and atomic without a transaction of its own.
 */
export async function insertSession(
  db: Executor,
  session: { tokenHash: Buffer; key: KeyForLogin; expiresAt: Date },
): Promise<void> {
  await db.query(
    `with created as (
       insert into sessions (token_hash, access_key_id, user_id, tenant_id, expires_at) values ($1, $2, $3, $4, $5)
     ), user_seen as (
       update users set last_login_at = now() where id = $3
     )
     update access_keys set last_used_at = now() where id = $2`,
    [session.tokenHash, session.key.id, session.key.user_id, session.key.tenant_id, session.expiresAt],
  );
}

export async function deleteSessionsExpiredBefore(db: Executor, before: Date): Promise<number> {
  const { rowCount } = await db.query('delete from sessions where expires_at < $1', [before]);
  return rowCount;
}

export interface SessionRow {
  user_id: string;
  tenant_id: string;
  access_key_id: string;
  key_scope: Level;
  key_account_id: string | null;
  expired: boolean;
  /** false when the key was revoked or expired, or its user locked, after the session began */
  usable: boolean;
  /** milliseconds until the session or its key expires, by the database's clock */
  valid_for_ms: number;
  assignments: { level: Level; account_id: string | null; role: Role }[];
}

/** One round trip: the session, its key, its user and the user's role assignments. */
export async function findSession(db: Executor, tokenHash: Buffer): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `select s.user_id, s.tenant_id, s.access_key_id, k.scope as key_scope, k.account_id as key_account_id,
            s.expires_at <= now() as expired,
            (k.revoked_at is null and (k.expires_at is null or k.expires_at > now()) and not u.locked) as usable,
            (extract(epoch from least(s.expires_at, k.expires_at) - now()) * 1000)::float8 as valid_for_ms,
            coalesce((select json_agg(json_build_object('level', r.level, 'account_id', r.account_id, 'role', r.role))
                        from role_assignments r where r.user_id = s.user_id), '[]'::json) as assignments
       from sessions s
       join access_keys k on k.id = s.access_key_id
       join users u on u.id = s.user_id
      where s.token_hash = $1`,
    [tokenHash],
  );
  const row = rows[0];
  if (row && typeof row.assignments === 'string') row.assignments = JSON.parse(row.assignments);
  return row;
}
