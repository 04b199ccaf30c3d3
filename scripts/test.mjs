#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and bench/ with Node's test runner (TypeScript through tsx).
// The engine is PGlite in memory, or the PostgreSQL server of DATABASE_URL when it is set
// (each test file then gets a database of its own). On PostgreSQL the whole-suite run skips the
// files that never reach a database (pure engines, parsers, HTTP helpers): they prove nothing
// new on a second engine, and the PGlite pass runs them. Files named on the command line always
// run. Extra arguments are passed to node --test, e.g. `npm test -- --test-name-pattern=filters`.
import { spawnSync } from 'node:child_process';
import { findTests, reachesDatabase } from './test-files.mjs';

const args = process.argv.slice(2);
const explicit = args.filter((arg) => arg.endsWith('.test.ts'));
const options = args.filter((arg) => !arg.endsWith('.test.ts'));
const onPostgres = Boolean(process.env.DATABASE_URL);
const everyTest = findTests(['src', 'test', 'bench']);
const files = explicit.length > 0 ? explicit : onPostgres ? everyTest.filter(reachesDatabase) : everyTest;
const engine = onPostgres ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (in memory)';
const skipped = explicit.length > 0 ? 0 : everyTest.length - files.length;
console.log(
  `posture tests: ${files.length} files on ${engine}` +
    (skipped > 0 ? ` (${skipped} files that reach no database are left to the PGlite pass)` : ''),
);

// Each test file is a process of a few seconds, two at a time on two cores. V8's background
// threads then compete with the other file's process for the same cores, for work a short
// process never gets back: optimizing PGlite's WebAssembly beyond its baseline compile, and
// marking the heap in parallel. With the flags a sample of 34 database files took 105 to 108 s,
// against 118 to 143 s without (docs/development.md, "Tests"). Test files inherit them; the
// servers some tests spawn do not, and run as production does.
const v8Flags = ['--liftoff-only', '--single-threaded-gc'];
const runnerOptions = ['--test-concurrency=2', '--test-timeout=300000'];

const result = spawnSync(
  process.execPath,
  [...v8Flags, '--import', 'tsx', '--test', ...runnerOptions, ...options, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
