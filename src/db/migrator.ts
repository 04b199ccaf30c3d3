/**
 * The one migrator, used at boot, by the CLI and by tests. Migrations are ordered TypeScript
 * modules holding SQL that runs unchanged on PostgreSQL and PGlite. All pending migrations run in
 * one transaction under an advisory lock, so concurrent starts serialise and a failed migration
 * leaves the schema as it was. The tables the applied migrations rewrote are vacuumed after the
 * commit; should that fail, the start fails with it, and the next one leaves them to autovacuum.
 */
import type { Database, Executor } from './database.js';
import { migrations } from './migrations/index.js';

/** Arbitrary constant: the advisory lock key every Posture process agrees on for migrations. */
const MIGRATION_LOCK_KEY = 7_106_355_811;

export interface Migration {
  id: string;
  sql: string;
  /**
   * Tables the migration rewrites, vacuumed once the migrations have committed (VACUUM cannot run
   * in a transaction). A rewritten table has an empty visibility map, so until autovacuum next
   * visits it every index-only scan over it reads the heap too: the counts of list pages.
   */
  vacuumAfter?: readonly string[];
}

/**
 * `work` in a transaction holding the migrations' advisory lock: what every starting process does
 * to the schema's catalog besides migrating (the application role's grants, prepare.ts) takes its
 * turn with the others' migrations and grants. Two GRANTs on the same tables at once fail one of
 * them with `tuple concurrently updated`.
 */
export function withMigrationLock<T>(db: Database, work: (tx: Executor) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    return work(tx);
  });
}

export async function migrate(db: Database, list: readonly Migration[] = migrations): Promise<string[]> {
  const applied = await applyPending(db, list);
  const rewritten = new Set(applied.flatMap((migration) => migration.vacuumAfter ?? []));
  for (const table of rewritten) await db.vacuum(table);
  return applied.map((migration) => migration.id);
}

/** The pending migrations of `list`, applied and recorded in one transaction. */
async function applyPending(db: Database, list: readonly Migration[]): Promise<readonly Migration[]> {
  return withMigrationLock(db, async (tx) => {
    await tx.exec(`create table if not exists schema_migrations (
      id text primary key,
      applied_at timestamptz not null default now()
    )`);
    const { rows } = await tx.query<{ id: string }>('select id from schema_migrations');
    const applied = new Set(rows.map((row) => row.id));
    const pending = list.filter((migration) => !applied.has(migration.id));
    for (const migration of pending) {
      await tx.exec(migration.sql);
      await tx.query('insert into schema_migrations (id) values ($1)', [migration.id]);
    }
    if (pending.length > 0) await reapplyRowLevelSecurity(tx);
    return pending;
  });
}

/**
 * Tables added by migrations after 0011 get their row-level security policies here, from the
 * catalog (see 0011-row-level-security.ts), so no account-owned table is ever left open.
 */
async function reapplyRowLevelSecurity(tx: Executor): Promise<void> {
  const { rows } = await tx.query<{ defined: boolean }>(
    "select to_regprocedure('posture_apply_row_level_security()') is not null as defined",
  );
  if (rows[0]?.defined) await tx.query('select posture_apply_row_level_security()');
}
