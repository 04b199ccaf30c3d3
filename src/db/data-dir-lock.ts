import lockfile from 'proper-lockfile';

export class DataDirLockedError extends Error {}

/**
 * Locks an embedded data directory for this process. PGlite has no server to arbitrate between
 * processes, so two writers would corrupt the store; the second one must fail fast instead.
 * The lock is refreshed while we run and considered stale when its owner stops refreshing it.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  try {
    const release = await lockfile.lock(dataDir, {
      stale: 15_000,
      update: 5_000,
      retries: 0,
      realpath: false,
      onCompromised: (error) => {
        // Someone removed or took over our lock: continuing could corrupt the store.
        console.error(`posture: lost the lock on ${dataDir}: ${error.message}; exiting`);
        process.exit(70);
      },
    });
    return release;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new DataDirLockedError(
        `the data directory ${dataDir} is in use by another Posture process (stop it, or set DATA_DIR)`,
      );
    }
    throw error;
  }
}
