#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and bench/ with Node's test runner (TypeScript through tsx).
// The engine is PGlite in memory, or the PostgreSQL server of DATABASE_URL when it is set
// (each test file then gets a database of its own). On PostgreSQL the whole-suite run skips the
// files that never reach a database (pure engines, parsers, HTTP helpers): they prove nothing
// new on a second engine, and the PGlite pass runs them. Files named on the command line always
// run, each in a process of its own. Extra arguments are passed to node --test, e.g.
// `npm test -- --test-name-pattern=filters`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findTests, OWN_PROCESS, reachesDatabase } from './test-files.mjs';
import { entryModule } from './test-group.mjs';

const args = process.argv.slice(2);
const explicit = args.filter((arg) => arg.endsWith('.test.ts'));
const options = args.filter((arg) => !arg.endsWith('.test.ts'));
const onPostgres = Boolean(process.env.DATABASE_URL);
const everyTest = findTests(['src', 'test', 'bench']);
const files = explicit.length > 0 ? explicit : onPostgres ? everyTest.filter(reachesDatabase) : everyTest;
const engine = onPostgres ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (in memory)';
const skipped = explicit.length > 0 ? 0 : everyTest.length - files.length;

// A test process pays about 3 s of CPU before its first test: starting Node and tsx, loading
// the app's modules, compiling PGlite (docs/development.md, "Tests"). The whole-suite run
// therefore runs its files a few to a process, in order so that neighbours share their imports;
// OWN_PROCESS files run alone, and first, since they are also the longest.
const FILES_PER_PROCESS = 8;
const entriesDir = explicit.length > 0 ? undefined : makeEntriesDir();
const entries = entriesDir ? writeProcessEntries(entriesDir, files) : files;
console.log(
  `posture tests: ${files.length} files on ${engine}` +
    (explicit.length > 0 ? '' : ` in ${entries.length} processes`) +
    (skipped > 0 ? ` (${skipped} files that reach no database are left to the PGlite pass)` : ''),
);

// Two processes run at a time on two cores. V8's background threads then compete with the other
// process for the same cores, for work a process of seconds never gets back: optimizing PGlite's
// WebAssembly beyond its baseline compile, and marking the heap in parallel. With the flags the
// PGlite pass took 308 s, against 371 s without (docs/development.md, "Tests"). Test processes
// inherit them; the servers some tests spawn do not, and run as production does.
const v8Flags = ['--liftoff-only', '--single-threaded-gc'];
const runnerOptions = ['--test-concurrency=2', '--test-timeout=300000'];

const result = spawnSync(
  process.execPath,
  [...v8Flags, '--import', 'tsx', '--test', ...runnerOptions, ...options, ...entries],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
if (entriesDir) rmSync(entriesDir, { recursive: true, force: true });
process.exit(result.status ?? 1);

/**
 * A directory of this run's own, so that two runs at once (one per engine) keep their entries
 * apart. Those of runs interrupted more than a day ago are removed.
 */
function makeEntriesDir() {
  const cache = resolve('node_modules/.cache/posture');
  mkdirSync(cache, { recursive: true });
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const entry of readdirSync(cache)) {
    const path = join(cache, entry);
    if (entry.startsWith('test-processes-') && statSync(path).mtimeMs < dayAgo) {
      rmSync(path, { recursive: true, force: true });
    }
  }
  return mkdtempSync(join(cache, 'test-processes-'));
}

/**
 * Writes one entry module per test process into `dir` and returns their paths: the OWN_PROCESS
 * files as they are, the others in runs of FILES_PER_PROCESS (`entryModule`).
 */
function writeProcessEntries(dir, testFiles) {
  const alone = testFiles.filter((file) => OWN_PROCESS.has(file));
  const shared = testFiles.filter((file) => !OWN_PROCESS.has(file));
  const grouped = [];
  for (let start = 0; start < shared.length; start += FILES_PER_PROCESS) {
    const group = shared.slice(start, start + FILES_PER_PROCESS);
    const entry = join(dir, `${String(grouped.length + 1).padStart(2, '0')}.test.mjs`);
    writeFileSync(entry, entryModule(process.cwd(), group));
    grouped.push(entry);
  }
  return [...alone, ...grouped];
}
