/**
 * Workload-container states this server parsed and stored, kept between runtime pushes with the
 * version their row was stored at (migration 0043). A push tells the database which versions it
 * holds and reads back only the states whose row moved on (another server, the learning-window
 * sweep), so an agent pushing every few seconds costs no re-read and re-parse of its containers'
 * states (about 200 KiB of JSON each).
 *
 * A state is taken out of the cache when a push loads it, because the engine advances it in place,
 * and put back only after the push's transaction committed: a push that fails leaves nothing
 * behind that its rollback undid. The cache is bounded by the JSON size of what it holds, and
 * forgets states not pushed to for a while, so a server that stopped receiving runtime events
 * holds none. Its budget is `RUNTIME_STATE_CACHE_MB`, 16 MiB by default: reading the states back
 * and parsing them was 8% of a push's server CPU with PostgreSQL on the same host, and costs more
 * where it is on another (docs/performance.md, "Fix 20" and "Fix 50").
 *
 * @example
 *   const cache = createStateCache({ maxChars: 16 * 1024 * 1024 });
 *   const held = cache.heldVersions(ids);               // sent with the load query
 *   const state = cache.take(id, versionOfRow);         // when the row's version matched
 *   cache.keep(id, storedVersion, state, json.length);  // after the commit
 */
import type { WorkloadContainerState } from '../../engines/runtime/index.js';

export interface StateCacheLimits {
  /** the JSON length of all held states together, in characters; 0 holds none */
  maxChars: number;
  /** a state not kept again within this time is dropped (default 60 s) */
  idleMs?: number;
}

const DEFAULT_IDLE_MS = 60_000;

interface Entry {
  version: string;
  state: WorkloadContainerState;
  chars: number;
  keptAt: number;
}

export interface StateCache {
  /** The ids among `ids` whose state is held, with the version each was stored at. */
  heldVersions(ids: readonly string[]): { ids: string[]; versions: string[] };
  /** The held state of `id` if it is at `version`. It leaves the cache either way. */
  take(id: string, version: string): WorkloadContainerState | undefined;
  /** A state the caller's committed transaction stored at `version` (`chars`: its JSON length). */
  keep(id: string, version: string, state: WorkloadContainerState, chars: number): void;
  /** Drops every held state and stops the idle timer. */
  close(): void;
  /** What is held, for tests and diagnostics. */
  readonly size: { states: number; chars: number };
}

export function createStateCache(limits: StateCacheLimits, clock: () => number = Date.now): StateCache {
  const { maxChars, idleMs = DEFAULT_IDLE_MS } = limits;
  // Insertion order is keep order: the front holds the least recently kept.
  const entries = new Map<string, Entry>();
  let chars = 0;

  const drop = (id: string, entry: Entry) => {
    entries.delete(id);
    chars -= entry.chars;
  };
  const dropIdle = () => {
    const oldest = clock() - idleMs;
    for (const [id, entry] of entries) {
      if (entry.keptAt > oldest) break;
      drop(id, entry);
    }
  };
  const timer = setInterval(dropIdle, idleMs);
  timer.unref();

  return {
    heldVersions(ids) {
      const held = { ids: [] as string[], versions: [] as string[] };
      for (const id of ids) {
        const entry = entries.get(id);
        if (!entry) continue;
        held.ids.push(id);
        held.versions.push(entry.version);
      }
      return held;
    },
    take(id, version) {
      const entry = entries.get(id);
      if (!entry) return undefined;
      drop(id, entry);
      return entry.version === version ? entry.state : undefined;
    },
    keep(id, version, state, size) {
      const previous = entries.get(id);
      if (previous) drop(id, previous);
      if (size > maxChars) return;
      entries.set(id, { version, state, chars: size, keptAt: clock() });
      chars += size;
      for (const [oldestId, oldest] of entries) {
        if (chars <= maxChars) break;
        drop(oldestId, oldest);
      }
      dropIdle();
    },
    close() {
      clearInterval(timer);
      entries.clear();
      chars = 0;
    },
    get size() {
      return { states: entries.size, chars };
    },
  };
}
