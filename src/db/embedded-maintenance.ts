/**
 * Autovacuum's job for the embedded store. PGlite runs PostgreSQL in single-user mode, where no
 * background worker runs: left alone, no table is ever analyzed (the planner keeps guessing row
 * counts and selectivities for tables of any size: docs/performance.md, "The embedded store's
 * statistics") and no dead row is ever vacuumed. Every minute, the server analyzes and vacuums the
 * tables that PostgreSQL's autovacuum would have, by its default thresholds:
 *
 *   analyze when rows changed since the last analyze > 50 + 10% of the table's rows,
 *   vacuum  when dead rows > 50 + 20% of the table's rows,
 *        or when rows inserted since the last vacuum > 1,000 + 20% of the table's rows,
 *        or when pages not marked all-visible > 100 + 20% of the table's pages.
 *
 * The insert rule (PostgreSQL's autovacuum_vacuum_insert_threshold and _scale_factor) matters for
 * Posture's tables that are only ever inserted into (CVE rows, findings, image packages): only a
 * vacuum marks their pages all-visible, and until one does, an index-only scan fetches each row's
 * heap page anyway. The last rule is for what PGlite forgets: it starts every time with its
 * activity counters at zero, so a table filled before a restart would never count as inserted
 * into; pg_class still says (as of its last analyze or vacuum) how much of it is all-visible.
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
const VACUUM_INSERT_THRESHOLD = 1000;
const VACUUM_INSERT_SCALE = 0.2;
const VACUUM_UNMARKED_PAGES_THRESHOLD = 100;
const VACUUM_UNMARKED_PAGES_SCALE = 0.2;
export const MAINTENANCE_INTERVAL_MS = 60_000;

interface TableActivity {
  table: string;
  live: number;
  changed: number;
  dead: number;
  inserted: number;
  /** pg_class.relpages and relallvisible, as of the table's last analyze or vacuum */
  pages: number;
  allVisible: number;
}

export interface MaintenanceRound {
  analyzed: string[];
  vacuumed: string[];
  /** the round's longest statement: how long a request that came during it may have waited */
  longest?: { statement: string; ms: number };
}

/**
 * A statement holding the store at least this long is logged: the requests that came meanwhile
 * waited for it, and an operator seeing a latency spike should find why.
 */
export const LONG_MAINTENANCE_MS = 1000;

/** One round: the tables past autovacuum's thresholds get their ANALYZE, then their VACUUM. */
export async function maintainEmbeddedStore(db: Database): Promise<MaintenanceRound> {
  // The only backend reports its row counts at most once a second; make the next report now.
  await db.query('select pg_stat_force_next_flush()');
  const { rows } = await db.query<TableActivity>(
    `select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as table, s.n_live_tup as live,
            s.n_mod_since_analyze as changed, s.n_dead_tup as dead, s.n_ins_since_vacuum as inserted,
            c.relpages as pages, c.relallvisible as "allVisible"
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid order by s.relname`,
  );
  const analyzed = rows.filter((t) => t.changed > ANALYZE_THRESHOLD + ANALYZE_SCALE * t.live);
  const vacuumed = rows.filter(
    (t) =>
      t.dead > VACUUM_THRESHOLD + VACUUM_SCALE * t.live ||
      t.inserted > VACUUM_INSERT_THRESHOLD + VACUUM_INSERT_SCALE * t.live ||
      t.pages - t.allVisible > VACUUM_UNMARKED_PAGES_THRESHOLD + VACUUM_UNMARKED_PAGES_SCALE * t.pages,
  );
  // One statement per table, outside any transaction (VACUUM refuses to run in one): requests
  // queued meanwhile are served between two of them.
  let longest: MaintenanceRound['longest'];
  const statements = [
    ...analyzed.map(({ table }) => `analyze ${table}`),
    ...vacuumed.map(({ table }) => `vacuum ${table}`),
  ];
  for (const statement of statements) {
    const started = performance.now();
    await db.exec(statement);
    const ms = Math.round(performance.now() - started);
    if (!longest || ms > longest.ms) longest = { statement, ms };
  }
  return {
    analyzed: analyzed.map((t) => t.table),
    vacuumed: vacuumed.map((t) => t.table),
    ...(longest ? { longest } : {}),
  };
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
      .then(({ longest }) => {
        if (longest && longest.ms >= LONG_MAINTENANCE_MS) {
          log.warn(longest, 'embedded store maintenance held the store; requests meanwhile waited');
        }
      })
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
