/**
 * The API bytes of baseline fingerprints this server has sent, kept so that the next page holding
 * them reads neither their text from PostgreSQL nor encodes it again. A page of 20 baselines is
 * about 0.9 MB in the large benchmark, nearly all fingerprint text: reading the texts cost the
 * server 4 to 7 CPU ms a page (pg's decoding, the UTF-8 encoding, the collector) and PostgreSQL
 * about 1 ms for detoasting and sending them (docs/performance.md, "Fix 31").
 *
 * A baseline's row is written once (insert ... on conflict do nothing) and never updated by the
 * service, but its id is derived from the workload and the capture time, and a hand-typed update
 * or a migration may rewrite its text. So each text is kept with its row's version (PostgreSQL's
 * `xmin`, which every new row version renews) and served only to a page that read that version.
 *
 * Bounded by the bytes it holds (least recently used dropped first); `maxBytes` 0 holds nothing.
 *
 * @example
 *   const cache = createFingerprintCache({ maxBytes: 16 * 1024 * 1024 });
 *   cache.get(accountId, id, version) ?? cache.keep(accountId, id, version, Buffer.from(text));
 */

export interface FingerprintCache {
  /** Whether it may hold anything: a cache of 0 bytes is not asked. */
  readonly enabled: boolean;
  /** The bytes kept for the baseline at this row version, if any. */
  get(accountId: string, id: string, version: string): Buffer | undefined;
  /** Keeps the bytes of the baseline at this row version, and returns them. */
  keep(accountId: string, id: string, version: string, bytes: Buffer): Buffer;
  /** What is held, for tests and diagnostics. */
  readonly size: { entries: number; bytes: number };
}

interface Entry {
  version: string;
  bytes: Buffer;
}

export function createFingerprintCache({ maxBytes }: { maxBytes: number }): FingerprintCache {
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
