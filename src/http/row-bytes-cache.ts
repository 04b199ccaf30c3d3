/**
 * Response bytes of stored texts this server has sent, kept so that the next page holding them
 * reads neither their text from PostgreSQL nor encodes it again: baseline fingerprints (about
 * 43 KB each, docs/performance.md "Fix 31") and whole identities (about 66 KB each at large, with
 * their graph, permissions, risks and raw RBAC objects, "Fix 32"). Reading such texts cost the
 * server its CPU in pg's decoding, the UTF-8 encoding and the collector, and PostgreSQL its
 * detoasting.
 *
 * Each text is kept with the version of what it was made from, and served only to a page that read
 * that same version. A version is PostgreSQL's `xmin` of the rows (which every new row version
 * renews), as the caller composes it: the cache compares it and nothing else. A caller must keep
 * bytes made from rows at least as new as the version it keys them by (it read the version first),
 * so a page never gets bytes older than the rows it read.
 *
 * Bounded by the bytes it holds (least recently used dropped first); `maxBytes` 0 holds nothing.
 *
 * @example
 *   const cache = createRowBytesCache({ maxBytes: 16 * 1024 * 1024 });
 *   cache.get(accountId, id, version) ?? cache.keep(accountId, id, version, Buffer.from(text));
 */

export interface RowBytesCache {
  /** Whether it may hold anything: a cache of 0 bytes is not asked. */
  readonly enabled: boolean;
  /** The bytes kept for the account's row `id` at this version, if any. */
  get(accountId: string, id: string, version: string): Buffer | undefined;
  /** Keeps the bytes of the account's row `id` at this version, and returns them. */
  keep(accountId: string, id: string, version: string, bytes: Buffer): Buffer;
  /** What is held, for tests and diagnostics. */
  readonly size: { entries: number; bytes: number };
}

interface Entry {
  version: string;
  bytes: Buffer;
}

export function createRowBytesCache({ maxBytes }: { maxBytes: number }): RowBytesCache {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recent first.
  const entries = new Map<string, Entry>();
  let held = 0;

  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    held -= entry.bytes.length;
  };

  return {
    enabled: maxBytes > 0,
    get(accountId, id, version) {
      const key = `${accountId}/${id}`;
      const entry = entries.get(key);
      if (entry?.version !== version) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.bytes;
    },
    keep(accountId, id, version, bytes) {
      if (bytes.length > maxBytes) return bytes;
      const key = `${accountId}/${id}`;
      remove(key);
      entries.set(key, { version, bytes });
      held += bytes.length;
      while (held > maxBytes) remove(entries.keys().next().value as string);
      return bytes;
    },
    get size() {
      return { entries: entries.size, bytes: held };
    },
  };
}
