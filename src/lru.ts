/**
 * A bounded map that forgets its least recently used entry first: the shape of Posture's
 * in-process caches of immutable rows (accounts, access keys at login).
 *
 * @example
 *   const rows = createLru<AccountRow>(10_000);
 *   const row = rows.get(key) ?? rows.set(key, await read());
 */
export function createLru<Value>(maxEntries: number) {
  // A Map iterates in insertion order: re-inserting on every hit keeps the oldest use first.
  const entries = new Map<string, Value>();
  // The most recently used key, already last: a run of hits on one key (a client's burst of
  // requests) moves nothing, where deleting and re-adding it churned the Map on every request.
  let newest: string | undefined;

  return {
    get(key: string): Value | undefined {
      const value = entries.get(key);
      if (value !== undefined && key !== newest) {
        entries.delete(key);
        entries.set(key, value);
        newest = key;
      }
      return value;
    },

    /** Stores the value as the most recently used, and returns it. */
    set(key: string, value: Value): Value {
      entries.delete(key);
      entries.set(key, value);
      newest = key;
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
        if (oldest === newest) newest = undefined;
      }
      return value;
    },

    delete(key: string): void {
      entries.delete(key);
      if (key === newest) newest = undefined;
    },

    get size(): number {
      return entries.size;
    },
  };
}
