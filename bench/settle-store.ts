/**
 * Brings a PostgreSQL store to the state autovacuum leaves it in once it has caught up with a bulk
 * load: every table vacuumed (its visibility map set, so an index-only scan reads no heap page)
 * and analyzed. The suite runs it between the measured account's ingestion and the list cases.
 *
 * Without it, what the lists met depended on how far autovacuum had got: in the large run of
 * 2026-11-30 03:30 the containers' deep page fetched 11,301 heap pages that the run of 22:25 did
 * not (2.35x its small p99 against 1.01x), and autovacuum's workers shared the two cores with the
 * load cases (docs/performance.md, "What a run does" and "Fix 38"). A store serving clusters day
 * to day is in this state nearly all the time; the hour after a million-row first load is not
 * what the list targets are about. PGlite's store is the server's own (embedded-maintenance.ts).
 */
import { onConnection } from './pg-connection.js';

export async function settleStore(url: string): Promise<void> {
  // The whole database, as its owner: tables it does not own (shared catalogs) are skipped.
  await onConnection(url, (client) => client.query('vacuum (analyze)'));
}
