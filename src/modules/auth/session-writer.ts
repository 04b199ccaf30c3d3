/**
 * Logins' sessions written in groups (docs/performance.md, "Fix 30"). One group is written at a
 * time; the logins that arrive meanwhile wait for it and are written together next, in one
 * statement and one commit (insertSessions, migration 0049). A lone login is written at once, so
 * an idle server answers as fast as before, and under concurrent logins PostgreSQL's work per
 * statement and per commit is shared by the group instead of paid by each login.
 *
 * Each login still gets its own answer: written, or refused because its key may no longer log in
 * (revoked, expired, its user locked since it was read). A group whose statement fails is written
 * again one login at a time, so that one login's failure (its user deleted meanwhile) is not its
 * neighbours'.
 *
 * The statement runs in the system scope whoever's work started the group: logins come before
 * any tenant is known (src/db/scope.ts).
 *
 * @example
 *   const sessions = createSessionWriter(db);
 *   if (!(await sessions.write({ tokenHash, key, expiresAt }))) refuse();
 */
import type { Executor } from '../../db/database.js';
import { withSystemScope } from '../../db/scope.js';
import { insertSessions, type NewSession } from './repository.js';

/** Bounds one statement's arrays; more waiting logins go in the groups after it. */
const MAX_GROUP = 100;

interface Waiting {
  session: NewSession;
  resolve: (written: boolean) => void;
  reject: (error: unknown) => void;
}

export function createSessionWriter(db: Executor, maxGroup = MAX_GROUP) {
  const waiting: Waiting[] = [];
  let writing = false;

  async function writeGroup(group: readonly Waiting[]): Promise<void> {
    let written: Set<string>;
    try {
      written = await withSystemScope(() =>
        insertSessions(
          db,
          group.map((entry) => entry.session),
        ),
      );
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      else await Promise.all(group.map((entry) => writeGroup([entry])));
      return;
    }
    for (const entry of group) entry.resolve(written.has(entry.session.tokenHash.toString('hex')));
  }

  async function drain(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      await writeGroup(waiting.splice(0, maxGroup));
    }
    writing = false;
  }

  return {
    /** Writes the session unless its key may no longer log in; false when it was refused. */
    write(session: NewSession): Promise<boolean> {
      return new Promise<boolean>((resolve, reject) => {
        waiting.push({ session, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}
