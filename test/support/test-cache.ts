/**
 * node_modules/.cache/posture: what one test process builds and the others of the run reuse (a
 * migrated PGlite image, the server's bundle). A fresh clone has none. Each file is named by a
 * fingerprint of its inputs, so a changed input makes a new file instead of reusing a stale one.
 *
 * @example
 *   const path = cachedPath('pglite-', fingerprint, '.tar');
 *   writeFileSync(partialOf(path), bytes);
 *   publish(path); // renamed into place; pglite-* of other fingerprints, a day old, removed
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { repositoryRoot } from './schema-fingerprint.js';

const cacheDir = join(repositoryRoot, 'node_modules', '.cache', 'posture');

/** Where the file of this kind (`prefix`) and fingerprint lives; the directory exists afterwards. */
export function cachedPath(prefix: string, fingerprint: string, extension: string): string {
  mkdirSync(cacheDir, { recursive: true });
  return join(cacheDir, `${prefix}${fingerprint}${extension}`);
}

/** The name to write `path` under first: test processes running at once may build the same file. */
export function partialOf(path: string): string {
  return `${path}.${process.pid}.partial`;
}

/**
 * Renames the finished partial into place, so a reader sees a whole file or none. Files of the
 * same kind with other fingerprints are kept a day, for another working tree or a branch
 * switched back to, then removed (with the partials of processes that died writing them).
 */
export function publish(path: string, prefix: string): void {
  renameSync(partialOf(path), path);
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(cacheDir)) {
    const other = join(cacheDir, name);
    if (name === basename(path) || !name.startsWith(prefix)) continue;
    if (statSync(other).mtimeMs < dayAgo) rmSync(other, { force: true });
  }
}
