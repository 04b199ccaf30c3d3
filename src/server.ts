/**
 * Boot only: config -> database -> migrations -> demo tenant -> app -> listen, and a graceful
 * shutdown that lets in-flight requests finish.
 */
import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { openDatabase } from './db/database.js';
import { migrate } from './db/migrator.js';
import { ensureDemoTenant } from './demo/demo-tenant.js';
import { loadServerSecret } from './security/secrets.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.LOG_LEVEL });
  const db = await openDatabase(config, log);
  const applied = await migrate(db);
  if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
  const pepper = loadServerSecret(config);

  const app = await buildApp({ config, db, pepper });
  const url = await app.listen({ host: config.HOST, port: config.PORT });
  if (config.DEMO) await ensureDemoTenant({ db, pepper, baseUrl: url, app });
  log.info(
    { url, console: `${url}/console`, docs: `${url}/docs`, engine: db.engine },
    'Posture is listening',
  );

  closeWithGrace({ delay: config.SHUTDOWN_GRACE_SECONDS * 1000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an error');
    else log.info({ signal }, 'shutting down');
    await app.close(); // stops accepting, waits for in-flight requests
    await db.close();
  });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    console.error(`posture: ${error.message}`);
  } else {
    console.error('posture: failed to start:', error);
  }
  process.exit(1);
});
