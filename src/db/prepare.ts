/**
 * Opening the store for the server and the CLI: migrations first, through the owner's connection
 * when DATABASE_MIGRATION_URL is set (then the application's role is granted its data rights),
 * then the application's own connection. Migrations are no caller's work: they run in the system
 * scope.
 *
 * @example
 *   const { db, applied } = await openMigratedDatabase(config, log);
 */
import type { Config } from '../config.js';
import { grantAppRole, roleOfUrl } from './app-role.js';
import { type Database, type DatabaseLogger, openDatabase } from './database.js';
import { migrate, withMigrationLock } from './migrator.js';
import { withSystemScope } from './scope.js';

export async function openMigratedDatabase(
  config: Config,
  logger: DatabaseLogger,
): Promise<{ db: Database; applied: string[] }> {
  if (config.DATABASE_URL && config.DATABASE_MIGRATION_URL) {
    const appRole = roleOfUrl(config.DATABASE_URL);
    const owner = await openDatabase(
      { ...config, DATABASE_URL: config.DATABASE_MIGRATION_URL, DATABASE_POOL_SIZE: 1 },
      logger,
    );
    let applied: string[];
    try {
      applied = await withSystemScope(() => migrate(owner));
      // Under the migrations' lock: servers starting at once would otherwise GRANT on the same tables at once.
      await withSystemScope(() => withMigrationLock(owner, (tx) => grantAppRole(tx, appRole)));
    } finally {
      await owner.close();
    }
    return { db: await openDatabase(config, logger), applied };
  }
  const db = await openDatabase(config, logger);
  try {
    return { db, applied: await withSystemScope(() => migrate(db)) };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
