/**
 * The PostgreSQL server settings a run's figures depend on, recorded in the result file: the same
 * suite on a server with a tenth of the buffers or checkpoints every few seconds measures a
 * different thing (docs/performance.md, "PostgreSQL's settings").
 */
import pg from 'pg';

const RECORDED = [
  'server_version',
  'shared_buffers',
  'effective_cache_size',
  'work_mem',
  'maintenance_work_mem',
  'max_wal_size',
  'checkpoint_timeout',
  'wal_compression',
  'synchronous_commit',
  'fsync',
  'jit',
  'max_connections',
] as const;

/** Each recorded setting as PostgreSQL shows it (`SHOW`: with its unit, e.g. `128MB`). */
export async function postgresSettings(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const settings: Record<string, string> = {};
    for (const name of RECORDED) {
      const { rows } = await client.query<Record<string, string>>(`show ${name}`);
      settings[name] = Object.values(rows[0]!)[0]!;
    }
    return settings;
  } finally {
    await client.end();
  }
}
