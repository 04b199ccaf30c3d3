/**
 * A short hash of the files that decide what a freshly migrated test database holds: the
 * migrations, the migrator, and whatever else the caller names. Test databases made from a saved
 * image or template carry it in their name, so a changed migration never reuses a stale one.
 * `filesFingerprint` is the same hash of any files (the server bundle's sources).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `extraFiles` are paths relative to the repository's root. */
export function schemaFingerprint(extraFiles: readonly string[]): string {
  const migrations = join(repositoryRoot, 'src', 'db', 'migrations');
  const files = [
    ...readdirSync(migrations)
      .sort()
      .map((name) => join(migrations, name)),
    join(repositoryRoot, 'src', 'db', 'migrator.ts'),
    ...extraFiles.map((file) => join(repositoryRoot, file)),
  ];
  return filesFingerprint(files);
}

/** Absolute paths: each file's path and content are hashed, in the order given. */
export function filesFingerprint(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}
