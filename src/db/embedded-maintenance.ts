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
 * PGlite serves one statement at a time, so requests wait while a table is analyzed or vacuumed;
 * the thresholds keep that rare, and each ANALYZE samples 3,000 rows (statistics target 10), not
 * PostgreSQL's 30,000. Reading the sample is nearly all of an ANALYZE's cost here: with the full
 * sample, the round after a medium bulk load analyzed findings in 1.3 s, the CVE rows in 1.0 s and
 * five tables in 5 s, while every request waited (docs/performance.md, "Fix 33"); with 3,000 rows
 * each took 50 to 90 ms. The planner needs the row counts and the key columns' common values from
 * these statistics, which 3,000 rows give to a few percent, as for the scan push's catch-up
 * (migration 0036). Columns with a target of their own (migration 0031) keep it.
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
/** ANALYZE samples 300 rows per unit of the target: 3,000 rows (see the header) */
export const EMBEDDED_STATISTICS_TARGET = 10;
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
  // One statement per table: requests queued meanwhile are served between two of them.
  let longest: MaintenanceRound['longest'];
  const steps = [
    ...analyzed.map(({ table }) => ({ statement: `analyze ${table}`, run: () => analyzeSampled(db, table) })),
    ...vacuumed.map(({ table }) => ({ statement: `vacuum ${table}`, run: () => db.exec(`vacuum ${table}`) })),
  ];
  for (const { statement, run } of steps) {
    const started = performance.now();
    await run();
    const ms = Math.round(performance.now() - started);
    if (!longest || ms > longest.ms) longest = { statement, ms };
  }
  return {
    analyzed: analyzed.map((t) => t.table),
    vacuumed: vacuumed.map((t) => t.table),
    ...(longest ? { longest } : {}),
  };
}

/**
 * ANALYZE with the embedded store's sample, in a transaction of its own: SET LOCAL ends with it,
 * even when the ANALYZE fails. (VACUUM, which refuses to run in a transaction, needs no setting.)
 */
async function analyzeSampled(db: Database, table: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec(`set local default_statistics_target = ${EMBEDDED_STATISTICS_TARGET}`);
    await tx.exec(`analyze ${table}`);
  });
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
