/**
 * The PostgreSQL server settings a run's figures depend on, recorded in the result file: the same
 * suite on a server with a tenth of the buffers or checkpoints every few seconds measures a
 * different thing (docs/performance.md, "PostgreSQL's settings").
 */
import { onConnection } from './pg-connection.js';

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

/** Each recorded setting as PostgreSQL shows it (`current_setting`, as `SHOW`: `128MB`). */
export async function postgresSettings(url: string): Promise<Record<string, string>> {
  const { rows } = await onConnection(url, (client) =>
    client.query<{ name: string; value: string }>(
      'select name, current_setting(name) as value from unnest($1::text[]) as name',
      [RECORDED],
    ),
  );
  return Object.fromEntries(rows.map(({ name, value }) => [name, value]));
}
