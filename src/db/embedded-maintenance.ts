/**
 * Autovacuum's job for the embedded store. PGlite runs PostgreSQL in single-user mode, where no
 * background worker runs: left alone, no table is ever analyzed (the planner keeps guessing row
 * counts and selectivities for tables of any size: docs/performance.md, "The embedded store's
 * statistics") and no dead row is ever vacuumed. Every minute, the server analyzes and vacuums the
 * tables that PostgreSQL's autovacuum would have, by its default thresholds:
 *
 *   analyze when rows changed since the last analyze > 50 + 10% of the table's rows,
 *   vacuum  when dead rows > 50 + 20% of the table's rows.
 *
 * PGlite serves one statement at a time, so requests wait while a table is analyzed or vacuumed:
 * tens of milliseconds for ANALYZE's sample, longer for a VACUUM of a large table after heavy
 * churn; the thresholds keep that rare.
 *
 * @example
 *   const maintenance = startEmbeddedMaintenance(db, log);
 *   ...
 *   await maintenance.stop(); // before db.close()
 */
import type { Database, DatabaseLogger } from './database.js';

const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_THRESHOLD = 50;
const VACUUM_SCALE = 0.2;
export const MAINTENANCE_INTERVAL_MS = 60_000;

interface TableActivity {
  table: string;
  live: number;
  changed: number;
  dead: number;
}

export interface MaintenanceRound {
  analyzed: string[];
  vacuumed: string[];
}

/** One round: the tables past autovacuum's thresholds get their ANALYZE, then their VACUUM. */
export async function maintainEmbeddedStore(db: Database): Promise<MaintenanceRound> {
  // The only backend reports its row counts at most once a second; make the next report now.
  await db.query('select pg_stat_force_next_flush()');
  const { rows } = await db.query<TableActivity>(
    `select quote_ident(schemaname) || '.' || quote_ident(relname) as table, n_live_tup as live,
            n_mod_since_analyze as changed, n_dead_tup as dead
       from pg_stat_user_tables order by relname`,
  );
  const analyzed = rows.filter((t) => t.changed > ANALYZE_THRESHOLD + ANALYZE_SCALE * t.live);
  const vacuumed = rows.filter((t) => t.dead > VACUUM_THRESHOLD + VACUUM_SCALE * t.live);
  // One statement per table, outside any transaction (VACUUM refuses to run in one).
  for (const { table } of analyzed) await db.exec(`analyze ${table}`);
  for (const { table } of vacuumed) await db.exec(`vacuum ${table}`);
  return { analyzed: analyzed.map((t) => t.table), vacuumed: vacuumed.map((t) => t.table) };
}

/** Runs a round every minute until stopped; a failed round is logged and the next one tries again. */
export function startEmbeddedMaintenance(
  db: Database,
  log: DatabaseLogger,
  intervalMs = MAINTENANCE_INTERVAL_MS,
): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return; // a long VACUUM is still going: skip this round rather than queue another
    running = maintainEmbeddedStore(db)
      .catch((err: unknown) =>
        log.warn({ err }, 'embedded store maintenance (analyze, vacuum) failed; retrying in a minute'),
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
