/**
 * Counts failed authentications per access key id and per client address in a sliding window.
 * Past the limit the endpoint answers 429 with Retry-After until the oldest failure ages out.
 * In-process by design: one Posture process guards its own endpoint (docs/auth.md).
 */
export interface LoginThrottle {
  /** Seconds the caller must wait, or 0 when it may try. */
  retryAfter(keys: readonly string[], now?: number): number;
  recordFailure(keys: readonly string[], now?: number): void;
  reset(key: string): void;
}

/** Bound on remembered keys, so a flood of random ids cannot grow memory without limit. */
const MAX_TRACKED_KEYS = 100_000;

export function createLoginThrottle(maxFailures: number, windowSeconds: number): LoginThrottle {
  const windowMs = windowSeconds * 1000;
  const failures = new Map<string, number[]>();

  const recent = (key: string, now: number): number[] => {
    const times = (failures.get(key) ?? []).filter((time) => now - time < windowMs);
    if (times.length === 0) failures.delete(key);
    else failures.set(key, times);
    return times;
  };

  return {
    retryAfter(keys, now = Date.now()) {
      let wait = 0;
      for (const key of keys) {
        const times = recent(key, now);
        if (times.length >= maxFailures) {
          const oldest = times[times.length - maxFailures] ?? now;
          wait = Math.max(wait, Math.ceil((oldest + windowMs - now) / 1000));
        }
      }
      return wait;
    },
    recordFailure(keys, now = Date.now()) {
      for (const key of keys) {
        if (!failures.has(key) && failures.size >= MAX_TRACKED_KEYS) {
          const first = failures.keys().next().value;
          if (first !== undefined) failures.delete(first);
        }
        const times = recent(key, now);
        times.push(now);
        failures.set(key, times.slice(-maxFailures));
      }
    },
    reset(key) {
      failures.delete(key);
    },
  };
}
