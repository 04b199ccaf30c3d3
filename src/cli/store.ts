/**
 * The store as the CLI sees it: the server's own configuration, database and migrator, opened for
 * one command and always closed afterwards (PGlite holds a lock on its data directory until then).
 *
 * @example
 *   const account = await withStore(io, (store) => store.tenancy().createAccount({ tenantId, name }));
 */
import { type Config, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import type { Database } from '../db/database.js';
import { openMigratedDatabase } from '../db/prepare.js';
import { withSystemScope } from '../db/scope.js';
import { evaluateImagesAfterUpgrade } from '../modules/findings/upgrade.js';
import { createTenancyService, type TenancyService } from '../modules/tenancy/service.js';
import { loadServerSecret } from '../security/secrets.js';
import { describeError } from './errors.js';

/** Where a command writes: the process streams, or buffers in tests. */
export interface TextSink {
  write(text: string): unknown;
}

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: TextSink;
  stderr: TextSink;
}

export interface Store {
  db: Database;
  config: Config;
  /** migrations this run applied (the store is always brought up to date first, as at boot) */
  applied: string[];
  /** The operator-side tenancy service, with the server's pepper so the keys it makes authenticate. */
  tenancy(): TenancyService;
}

export async function withStore<T>(io: CliIo, work: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  const logger = {
    warn: (_details: object, message: string) => io.stderr.write(`posture: warning: ${message}\n`),
    error: (_details: object, message: string) => io.stderr.write(`posture: ${message}\n`),
  };
  // Opening includes migrating (through DATABASE_MIGRATION_URL when set); a failure names the step.
  const { db, applied } = await openMigratedDatabase(config, logger).catch(failedTo('migrate'));
  let result: T;
  try {
    // Loaded only when needed: `posture migrate` must not create DATA_DIR/posture.secret.
    let tenancy: TenancyService | undefined;
    // The operator's commands act on any tenant: the system scope (row-level security).
    // A run that applied the per-image vulnerability findings migration evaluates them first.
    await withSystemScope(() => evaluateImagesAfterUpgrade(db, applied)).catch((error: unknown) => {
      // The command still runs: each image's next scan or container change evaluates it.
      logger.warn({}, `vulnerability findings per image were not evaluated: ${describeError(error)}`);
    });
    result = await withSystemScope(() =>
      work({
        db,
        config,
        applied,
        tenancy: () => {
          tenancy ??= createTenancyService({ db, pepper: loadServerSecret(config) });
          return tenancy;
        },
      }),
    );
  } catch (error) {
    await db.close().catch(() => undefined); // the first failure is the one worth reporting
    throw error;
  }
  await db.close();
  return result;
}

/** A database that cannot be opened or migrated is named as such, not as a bare socket error. */
const failedTo =
  (step: 'open' | 'migrate') =>
  (error: unknown): never => {
    if (error instanceof DataDirLockedError) throw error;
    throw new Error(`cannot ${step} the database: ${describeError(error)}`, { cause: error });
  };
