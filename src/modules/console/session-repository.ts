import type { Executor } from '../../db/database.js';

/** Ends one session. The token hash is the session's own secret, so it is its whole scope. */
export async function deleteSession(db: Executor, tokenHash: Buffer): Promise<number> {
  const { rowCount } = await db.query('delete from sessions where token_hash = $1', [tokenHash]);
  return rowCount;
}
