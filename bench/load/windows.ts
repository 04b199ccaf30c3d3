/**
 * A case and its ceiling measured in turns: short windows of one, then the other, repeated, each
 * side's windows merged into one summary. One long window of each, back to back, carries into
 * their ratio whatever the shared machine did between the two; in turns both sides see the same
 * machine (docs/performance.md, "Measured again: what the tiny response costs").
 */
import type { LoadSummary } from './protocol.js';

/** How long a turn lasts: short enough to interleave, long enough to reach steady load. */
const TURN_SECONDS = 2;

/**
 * The turns a case of `seconds` is split into, each side getting about `seconds` in all. A turn
 * is whole seconds: autocannon stops at its once-a-second sample, so a 1.5 s run lasts 2 s.
 */
export function turnsOf(seconds: number): { turns: number; seconds: number } {
  const turns = Math.max(1, Math.round(seconds / TURN_SECONDS));
  return turns === 1 ? { turns, seconds } : { turns, seconds: Math.round(seconds / turns) };
}

/**
 * One summary of several windows' requests. Counts add up and the rate is over the windows' time
 * together; each latency percentile is the windows' worst, an upper bound of the merged one (no
 * more than 1% of any window is slower than its p99, so no more than 1% of all of them is slower
 * than the largest).
 */
export function mergeWindows(windows: LoadSummary[]): LoadSummary {
  if (windows.length === 0) throw new Error('mergeWindows: no windows');
  const sum = (pick: (w: LoadSummary) => number) => windows.reduce((total, w) => total + pick(w), 0);
  const worst = (pick: (w: LoadSummary) => number) => Math.max(...windows.map(pick));
  const seconds = sum((w) => w.seconds);
  const ok = sum((w) => w.ok);
  return {
    requests: sum((w) => w.requests),
    ok,
    non2xx: sum((w) => w.non2xx),
    errors: sum((w) => w.errors),
    timeouts: sum((w) => w.timeouts),
    seconds: Math.round(seconds * 1000) / 1000,
    rps: Math.round((ok / Math.max(seconds, 0.001)) * 10) / 10,
    p50_ms: worst((w) => w.p50_ms),
    p90_ms: worst((w) => w.p90_ms),
    p99_ms: worst((w) => w.p99_ms),
    max_ms: worst((w) => w.max_ms),
    mb_per_s: Math.round((sum((w) => w.mb_per_s * w.seconds) / Math.max(seconds, 0.001)) * 100) / 100,
  };
}
