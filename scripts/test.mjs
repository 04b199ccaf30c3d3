#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and bench/ with Node's test runner (TypeScript through tsx).
// The engine is PGlite in memory, or the PostgreSQL server of DATABASE_URL when it is set
// (each test file then gets a database of its own). Extra arguments are passed to node --test,
// e.g. `npm test -- --test-name-pattern=filters`.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const args = process.argv.slice(2);
const explicit = args.filter((arg) => arg.endsWith('.test.ts'));
const options = args.filter((arg) => !arg.endsWith('.test.ts'));
const files = explicit.length > 0 ? explicit : ['src', 'test', 'bench'].flatMap(findTests).sort();
const engine = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (in memory)';
console.log(`posture tests: ${files.length} files on ${engine}`);

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...options, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
