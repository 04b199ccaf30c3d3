/**
 * The benchmark measures the server as production runs it: `node dist/server.js`, compiled by
 * `tsc -p tsconfig.build.json` (no tsx loader hooks or source-map cache in its memory and CPU).
 * So that no stale build is measured, dist/ is rebuilt whenever a file under src/ is newer than
 * dist/server.js (a fresh clone has no dist/ at all).
 *
 * BENCH_SERVER=<path of another build's server.js> measures that build instead, unbuilt and
 * unchanged: how a before/after pair is run in alternating rounds on the same machine state
 * (docs/performance.md, "Running it").
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const OWN_BUILD = 'dist/server.js';
export const BUILT_SERVER = process.env.BENCH_SERVER || OWN_BUILD;

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export function ensureBuiltServer(log: (line: string) => void): void {
  if (BUILT_SERVER !== OWN_BUILD) {
    if (!existsSync(BUILT_SERVER)) throw new Error(`BENCH_SERVER: no such file ${BUILT_SERVER}`);
    log(`bench: measuring the server build ${BUILT_SERVER} (BENCH_SERVER)`);
    return;
  }
  if (existsSync(OWN_BUILD) && statSync(OWN_BUILD).mtimeMs >= newestSourceMs('src')) return;
  log('bench: building the server (tsc -p tsconfig.build.json), as `npm run build:server` does');
  const build = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
    {
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) throw new Error(`building the server failed (exit ${build.status})`);
}
