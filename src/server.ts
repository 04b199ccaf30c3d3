/**
 * Boot only: config -> database -> migrations -> demo tenant -> app -> listen, and a graceful
 * shutdown that lets in-flight requests finish.
 */
import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { AppRoleError, checkAppRole } from './db/app-role.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import type { Database } from './db/database.js';
import { startEmbeddedMaintenance } from './db/embedded-maintenance.js';
import { openMigratedDatabase } from './db/prepare.js';
import { withSystemScope } from './db/scope.js';
import { ensureDemoTenant } from './demo/demo-tenant.js';
import { limitHeapGrowth } from './heap-growth.js';
import { evaluateImagesAfterUpgrade } from './modules/findings/upgrade.js';
import { loadServerSecret } from './security/secrets.js';

async function main(): Promise<void> {
  // Before the first request: the resident set under load is mostly heap growth (heap-growth.ts).
  limitHeapGrowth();
  const config = loadConfig();
  const log = pino({ level: config.LOG_LEVEL });
  const { db, applied } = await openMigratedDatabase(config, log);
  if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
  if (db.engine === 'postgres') await checkRowLevelSecurityRole(db, config, log);
  // After the role check: a server about to refuse its database role evaluates nothing.
  try {
    const clusters = await withSystemScope(() => evaluateImagesAfterUpgrade(db, applied));
    if (clusters > 0) log.info({ clusters }, 'vulnerability findings evaluated per image');
  } catch (err) {
    // Not worth refusing to start: each image's next scan or container change evaluates it.
    log.warn({ err }, 'vulnerability findings per image: the evaluation after the upgrade failed');
  }
  const pepper = loadServerSecret(config);

  // PGlite has no autovacuum: the server analyzes and vacuums its tables (embedded-maintenance.ts).
  const maintenance = db.engine === 'pglite' ? startEmbeddedMaintenance(db, log) : undefined;
  const app = await buildApp({ config, db, pepper });
  const url = await app.listen({ host: config.HOST, port: config.PORT });
  if (config.DEMO) await withSystemScope(() => ensureDemoTenant({ db, pepper, baseUrl: url, app }));
  log.info(
    { url, console: `${url}/console`, docs: `${url}/docs`, engine: db.engine },
    'Posture is listening',
  );

  closeWithGrace({ delay: config.SHUTDOWN_GRACE_SECONDS * 1000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an error');
    else log.info({ signal }, 'shutting down');
    await app.close(); // stops accepting, waits for in-flight requests
    await maintenance?.stop();
    await db.close();
  });
}

/** Row-level security binds only a role that cannot bypass it (docs/security.md). */
async function checkRowLevelSecurityRole(db: Database, config: Config, log: pino.Logger): Promise<void> {
  if (config.DATABASE_RLS_CHECK === 'off') {
    log.warn(
      'DATABASE_RLS_CHECK=off: the database role is not checked, and row-level security does not protect a role that owns the tables; never in production',
    );
    return;
  }
  try {
    await checkAppRole(db);
  } catch (error) {
    await db.close();
    throw error;
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof AppRoleError) {
    console.error(`posture: ${error.message}`);
  } else {
    console.error('posture: failed to start:', error);
  }
  process.exit(1);
});
