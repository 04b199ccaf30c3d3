/**
 * How far the server's JavaScript heap may grow between two full garbage collections.
 *
 * Under load, every request's rows and response text survive a couple of young-generation
 * collections while the request is in flight, so they are promoted to the old generation and die
 * there. V8 then lets the old generation grow to up to 4x what survived the last full collection
 * before it collects again (its default on a machine with this much memory). Posture's live heap
 * is about 40-50 MiB (a heap snapshot after a small ingestion: 39 MiB), but its resident set
 * reached 330-390 MiB under the benchmark's small load, almost all of it promoted garbage waiting
 * for the next full collection (docs/performance.md, "Server memory").
 *
 * A fixed growing factor of 1.5 makes the full collections come sooner and the heap stay near its
 * live size. It is set from inside the server, so every way of starting it (`npm start`,
 * `node dist/server.js`, `npm run dev`) gets it; V8 reads the flag each time it recomputes the
 * old generation's limit, after a full collection. An operator who starts node with their own
 * `--heap-growing-percent` keeps theirs.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to 1.5x what survived the last full collection. */
export const HEAP_GROWING_PERCENT = 50;

/** The V8 flag to set, or undefined when node was started with its own choice. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  const chosen = execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
  return chosen ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapGrowthFlag(execArgv);
  if (flag) setFlagsFromString(flag);
}
