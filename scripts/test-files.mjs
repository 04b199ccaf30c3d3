// The test files of `npm test`, and which of them reach a database: the PostgreSQL pass of `npm test` runs only those
// (scripts/test.mjs). A file reaches one when it, or any module it imports from this repository
// (followed transitively, static and dynamic imports), lives under src/db/ or reads
// DATABASE_URL (the tests that spawn a server or the CLI). Following the imports rather than
// keeping a list means a unit test that starts using the database is picked up by itself.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

const RELATIVE_IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
const DATABASE_DIR = resolve('src/db') + sep;

/** The repository files a module imports, `.js` specifiers mapped to their `.ts` sources. */
function localImports(text, file) {
  const found = [];
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const target = resolve(dirname(file), match[1]);
    const source = target.endsWith('.js') ? `${target.slice(0, -3)}.ts` : target;
    if (existsSync(source)) found.push(source);
  }
  return found;
}

export function reachesDatabase(testFile) {
  const seen = new Set();
  const pending = [resolve(testFile)];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.startsWith(DATABASE_DIR)) return true;
    const text = readFileSync(file, 'utf8');
    if (text.includes('DATABASE_URL')) return true;
    pending.push(...localImports(text, file));
  }
  return false;
}

/** Every *.test.ts under the given directories, sorted. */
export function findTests(dirs) {
  const walk = (dir) =>
    readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? walk(path) : entry.endsWith('.test.ts') ? [path] : [];
    });
  return dirs.flatMap(walk).sort();
}

/**
 * The test files the whole-suite run gives a process of their own (scripts/test.mjs), and why.
 * The others share a process with a few neighbours. The longest files are here too: started
 * first, each in a process of its own, they end with the rest instead of after it.
 */
const OWN_PROCESS_REASONS = {
  'test/security/fuzz.test.ts': 'samples process.memoryUsage() while a gzip bomb is refused; 30 to 70 s',
  'test/reliability/kill-during-ingest.test.ts': 'kills and restarts servers for 90 to 130 s (PostgreSQL)',
  'test/reliability/pglite-kill.test.ts': 'kills and restarts servers for about 40 s (PGlite)',
};

export const OWN_PROCESS = new Set(
  Object.keys(OWN_PROCESS_REASONS).map((file) => {
    if (!existsSync(file)) throw new Error(`scripts/test-files.mjs names ${file}, which does not exist`);
    return file;
  }),
);
