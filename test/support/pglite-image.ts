/**
 * One migrated PGlite data directory, shared by every test process of a run. A new PGlite store
 * runs initdb, and then the migrations: together 3 to 5 seconds of CPU, paid by every test file.
 * Restoring a data directory image skips both (about 1 second), so the first process that needs a
 * store migrates one and saves its image; the others start from it.
 *
 * The image is named by a hash of everything that shapes it (the migrations, the migrator, how
 * PGlite is opened, PGlite's version), so a changed migration makes a new image; images of other
 * schemas are removed after a day. It lives in node_modules/.cache, which a fresh clone lacks.
 *
 * @example
 *   const db = await openMigratedPglite(); // a private in-memory store, already migrated
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { migrate } from '../../src/db/migrator.js';
import { openPglite, type PgliteDatabase } from '../../src/db/pglite.js';
import { schemaFingerprint } from './schema-fingerprint.js';
import { cachedPath, partialOf, publish } from './test-cache.js';

function imagePath(): string {
  const fingerprint = schemaFingerprint([
    'src/db/pglite.ts',
    'node_modules/@electric-sql/pglite/package.json',
  ]);
  return cachedPath('pglite-', fingerprint, '.tar');
}

function readImage(path: string): Blob | undefined {
  try {
    return new Blob([readFileSync(path)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function saveImage(db: PgliteDatabase, path: string): Promise<void> {
  writeFileSync(partialOf(path), Buffer.from(await (await db.dumpDataDir()).arrayBuffer()));
  publish(path, 'pglite-');
}

export async function openMigratedPglite(): Promise<PgliteDatabase> {
  const path = imagePath();
  const image = readImage(path);
  if (image) return openPglite(':memory:', { image });
  const db = await openPglite(':memory:');
  await migrate(db);
  await saveImage(db, path);
  return db;
}
