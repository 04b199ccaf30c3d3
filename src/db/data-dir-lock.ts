import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import lockfile from 'proper-lockfile';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

const lockPath = (dataDir: string) => `${dataDir}.lock`;
// Beside the lock directory, not inside it: proper-lockfile watches the directory's mtime and
// would take a file written into it for a compromised lock.
const ownerFile = (dataDir: string) => `${dataDir}.lock.pid`;

/** True when the lock's recorded owner is a process that no longer exists on this host. */
function ownerIsGone(dataDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(ownerFile(dataDir), 'utf8'));
  } catch {
    return false; // no owner recorded (yet): trust the lock
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function acquire(dataDir: string) {
  return lockfile.lock(dataDir, {
    // Generous: PGlite runs on this process's event loop, and a long ingestion can delay the
    // refresh; a lock wrongly judged stale would let a second process corrupt the store. A crashed
    // owner is detected at once through its pid instead (see ownerIsGone).
    stale: 60_000,
    update: 10_000,
    retries: 0,
    realpath: false,
    onCompromised: (error) => {
      // Someone removed or took over our lock: continuing could corrupt the store.
      console.error(`posture: lost the lock on ${dataDir}: ${error.message}; exiting`);
      process.exit(70);
    },
  });
}

/**
 * Locks an embedded data directory for this process. PGlite has no server to arbitrate between
 * processes, so two writers would corrupt the store; the second one must fail fast instead. The
 * lock (`<dir>.lock`, owner pid in `<dir>.lock.pid`) records its owner, so a restart after a crash (kill -9) does not wait.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  let release: () => Promise<void>;
  try {
    release = await acquire(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    if (!ownerIsGone(dataDir)) {
      throw new DataDirLockedError(
        `the data directory ${dataDir} is in use by another Posture process (stop it, or set DATA_DIR)`,
      );
    }
    rmSync(lockPath(dataDir), { recursive: true, force: true });
    release = await acquire(dataDir);
  }
  writeFileSync(ownerFile(dataDir), String(process.pid));
  return async () => {
    rmSync(ownerFile(dataDir), { force: true });
    await release();
  };
}
