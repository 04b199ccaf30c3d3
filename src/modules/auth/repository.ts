import type { Executor } from '../../db/database.js';
import type { Level, Role } from '../../http/actor.js';

/** What never changes about an access key: enough to check a secret and write a session. */
export interface LoginKey {
  id: string;
  user_id: string;
  tenant_id: string;
  secret_hash: Buffer;
}

export interface KeyForLogin extends LoginKey {
  /** false when the key is revoked or expired, or its user locked */
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

/** A session to write for a login whose secret was checked. */
export interface NewSession {
  tokenHash: Buffer;
  key: LoginKey;
  expiresAt: Date;
}

/**
 * The sessions of logins and their audit fields (the users' last_login_at, the keys'
 * last_used_at) in one statement, atomic in the statement's own transaction: by
 * posture_open_session (migration 0040) for one login, posture_open_sessions (0049) for several,
 * which costs PostgreSQL 10 to 20% more than the former for a lone login. A session
 * is written only for a key that may still log in, checked by that same function (not revoked, not
 * expired, user not locked): so the answer of an earlier read, or of the login key cache, never
 * outlives a revocation. Returns the token hashes (hex) whose session was written; a login missing
 * from it is refused.
 *
 * The audit fields move at most once a second. Each update holds its row's lock until COMMIT, WAL
 * flush included, so concurrent logins of one key (a CI fleet, the benchmark) queued behind each
 * other's commit; a login within a second of the last one leaves the fields as they are and takes
 * no lock (docs/auth.md: the fields are accurate to the second).
 *
 * Functions rather than the statements themselves: PL/pgSQL keeps its statements' plans for the
 * connection, where the statement was parsed and planned again on every login (docs/performance.md,
 * "Fix 5", "Third pass").
 */
export async function insertSessions(db: Executor, sessions: readonly NewSession[]): Promise<Set<string>> {
  if (sessions.length === 1) {
    const [session] = sessions as [NewSession];
    const { rows } = await db.query<{ opened: boolean }>(
      'select posture_open_session($1, $2, $3, $4, $5) as opened',
      [session.tokenHash, session.key.id, session.key.user_id, session.key.tenant_id, session.expiresAt],
    );
    return new Set(rows[0]?.opened === true ? [session.tokenHash.toString('hex')] : []);
  }
  const { rows } = await db.query<{ token_hash: string }>(
    `select token_hash
       from posture_open_sessions($1::text[], $2::text[], $3::uuid[], $4::uuid[], $5::timestamptz[]) as token_hash`,
    [
      sessions.map((s) => s.tokenHash.toString('hex')),
      sessions.map((s) => s.key.id),
      sessions.map((s) => s.key.user_id),
      sessions.map((s) => s.key.tenant_id),
      sessions.map((s) => s.expiresAt.toISOString()),
    ],
  );
  return new Set(rows.map((row) => row.token_hash));
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

/**
 * One round trip: the session, its key, its user and the user's role assignments, by
 * posture_session (migration 0041), whose statement is planned once per connection.
 */
export async function findSession(db: Executor, tokenHash: Buffer): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>('select * from posture_session($1)', [tokenHash]);
  const row = rows[0];
  if (row && typeof row.assignments === 'string') row.assignments = JSON.parse(row.assignments);
  return row;
}
