/**
 * A connection of its own to one PostgreSQL database, for one job of the suite outside the
 * server's pool (creating or dropping a store, settling it, reading its settings), closed when the
 * job ends, whether it succeeded or not.
 *
 * @example
 *   await onConnection(url, (client) => client.query('vacuum (analyze)'));
 */
import pg from 'pg';

export async function onConnection<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
