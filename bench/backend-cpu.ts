/**
 * CPU time the PostgreSQL backends of one database used during a measurement, for the in-process
 * benchmarks (runtime-ingest.ts, cve-csv-export.ts): their process CPU holds the server's and the
 * client's Node work, not the database's, which shares the same two cores. The backends are found
 * in pg_stat_activity and read from /proc (Linux, the database on this machine); a backend that
 * ends during the measurement is missed, so the pool must outlive it (it does: idle connections
 * are kept 30 s).
 *
 * @example
 *   const meter = await backendCpu(database.ownerUrl);
 *   const before = await meter.read();
 *   ... // the measured work
 *   const dbCpuMs = (await meter.read()) - before; // null when not measurable
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { cpuMsOf } from './server-process.js';

export interface BackendCpu {
  /** Total CPU ms of the database's backends (other than this meter's) so far, or null. */
  read(): Promise<number | null>;
  close(): Promise<void>;
}

export async function backendCpu(url: string | undefined): Promise<BackendCpu> {
  if (!url) return { read: async () => null, close: async () => {} };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Per backend, so one that starts during the measurement counts from zero.
  const seen = new Map<number, number>();
  let total = 0;
  return {
    async read() {
      const { rows } = await client.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      for (const { pid } of rows) {
        let now: number;
        try {
          now = cpuMsOf(pid);
        } catch {
          // Ended since the query, or not on this machine (then every read is null).
          if (!existsSync(`/proc/${pid}`) && seen.size === 0) return null;
          continue;
        }
        total += now - (seen.get(pid) ?? 0);
        seen.set(pid, now);
      }
      return total;
    },
    close: () => client.end(),
  };
}
