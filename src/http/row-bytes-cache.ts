/**
 * Response bytes of stored texts this server has sent, kept so that the next page holding them
 * reads neither their text from PostgreSQL nor encodes it again: baseline fingerprints (about
 * 43 KB each, docs/performance.md "Fix 31"), whole identities (about 66 KB each at large, with
 * their graph, permissions, risks and raw RBAC objects, "Fix 32"), and the entries of lists read
 * page after page (runtime insights, "Fix 46"; inventory containers and HTTP request observations,
 * a few hundred bytes each, "Fix 48": `versionedPage`). Reading such texts cost the server its CPU
 * in pg's decoding, the UTF-8 encoding and the collector, and PostgreSQL its detoasting or its
 * writing of each entry's JSON.
 *
 * Each text is kept with the version of what it was made from, and served only to a page that read
 * that same version. A version is PostgreSQL's `xmin` of the rows (which every new row version
 * renews), as the caller composes it: the cache compares it and nothing else. A caller must keep
 * bytes made from rows at least as new as the version it keys them by (it read the version first),
 * so a page never gets bytes older than the rows it read.
 *
 * Bounded by the bytes it holds, the least recently used dropped first (nearly: `Shelves`);
 * `maxBytes` 0 holds nothing.
 *
 * @example
 *   const cache = createRowBytesCache({ maxBytes: 16 * 1024 * 1024 });
 *   cache.get(accountId, id, version) ?? cache.keep(accountId, id, version, Buffer.from(text));
 */
import type { EntryRow, RowVersion } from '../db/entry-json.js';

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
  accountId: string;
  version: string;
  bytes: Buffer;
  /** when it was kept or last moved to the newest end: its place in its table's Map */
  stamp: number;
}

/**
 * One byte budget over the rows of one or more tables: a Map of rows by id per table, each in the
 * order its entries were stamped, and the oldest of all of them dropped first.
 *
 * Keyed by the row's id alone, the string the page's read handed over, with the account compared
 * (another account's row of the same id is a miss, never its bytes). Recency is kept nearly, not
 * exactly: a hit moves its entry to the newest end only once it has fallen into the older half of
 * what is held, where dropping could reach it; whatever is read again before half the budget's
 * entries are kept after it stays held. The key used to be composed per lookup (account, table
 * and id joined) and every hit moved: a new string to build and hash, and a delete and a set in a
 * Map of tens of thousands of entries, on every entry of every page: a quarter to a half of the
 * server's CPU for a page served from its kept entries (docs/performance.md, "Fix 52").
 */
/** Each cache's shelves, so that rowBytesOfTable can give a table its own rows in the same budget. */
const shelvesOf = new WeakMap<RowBytesCache, Shelves>();

class Shelves {
  private readonly tables = new Map<string, Map<string, Entry>>();
  private held = 0;
  private count = 0;
  private stamp = 0;

  constructor(private readonly maxBytes: number) {}

  table(name: string): RowBytesCache {
    const rows = this.tables.get(name) ?? new Map<string, Entry>();
    this.tables.set(name, rows);
    const shelves = this;
    const cache: RowBytesCache = {
      enabled: this.maxBytes > 0,
      get: (accountId, id, version) => this.get(rows, accountId, id, version),
      keep: (accountId, id, version, bytes) => this.keep(rows, accountId, id, version, bytes),
      get size() {
        return shelves.size;
      },
    };
    shelvesOf.set(cache, this);
    return cache;
  }

  get size() {
    return { entries: this.count, bytes: this.held };
  }

  private get(rows: Map<string, Entry>, accountId: string, id: string, version: string) {
    const entry = rows.get(id);
    if (entry === undefined || entry.version !== version || entry.accountId !== accountId) return undefined;
    // At most `this.stamp - entry.stamp` entries were stamped after it.
    if (this.stamp - entry.stamp >= this.count / 2) {
      rows.delete(id);
      entry.stamp = ++this.stamp;
      rows.set(id, entry);
    }
    return entry.bytes;
  }

  private keep(rows: Map<string, Entry>, accountId: string, id: string, version: string, bytes: Buffer) {
    if (bytes.length > this.maxBytes) return bytes;
    this.remove(rows, id);
    rows.set(id, { accountId, version, bytes, stamp: ++this.stamp });
    this.held += bytes.length;
    this.count += 1;
    while (this.held > this.maxBytes) this.dropOldest();
    return bytes;
  }

  private remove(rows: Map<string, Entry>, id: string) {
    const entry = rows.get(id);
    if (!entry) return;
    rows.delete(id);
    this.held -= entry.bytes.length;
    this.count -= 1;
  }

  /** The entry stamped first, of whichever table: each table's Map holds its own oldest first. */
  private dropOldest() {
    let oldest: { rows: Map<string, Entry>; id: string; stamp: number } | undefined;
    for (const rows of this.tables.values()) {
      const first = rows.entries().next();
      if (first.done) continue;
      const [id, entry] = first.value;
      if (!oldest || entry.stamp < oldest.stamp) oldest = { rows, id, stamp: entry.stamp };
    }
    if (oldest) this.remove(oldest.rows, oldest.id);
  }
}

export function createRowBytesCache({ maxBytes }: { maxBytes: number }): RowBytesCache {
  return new Shelves(maxBytes).table('');
}

/**
 * `cache` for the rows of one table: lists of several tables share one budget, and an id is only
 * ever looked up among its own table's.
 */
export function rowBytesOfTable(cache: RowBytesCache, table: string): RowBytesCache {
  const shelves = shelvesOf.get(cache);
  if (!shelves) throw new Error('rowBytesOfTable takes a cache made by createRowBytesCache');
  return shelves.table(table);
}

/** The bytes of an entry PostgreSQL wrote as JSON text (db/entry-json.ts): its text, as sent. */
export const entryBytes = (row: EntryRow): Buffer => Buffer.from(row.entry);

/** How a list reads a page: whole, as ids and versions alone, and rows by id. */
export interface VersionedPageReads<Row extends RowVersion> {
  /** the page's rows whole, with their versions, and the list's total */
  whole(): Promise<{ rows: readonly Row[]; total: number }>;
  /** the page's rows' ids and versions alone, and the list's total */
  versions(): Promise<{ rows: readonly RowVersion[]; total: number }>;
  /** the account's rows `ids`, whole, with their versions */
  byIds(ids: string[]): Promise<readonly Row[]>;
}

/**
 * A page's entries as bytes, in the page's order, and its list's total. With the cache on, the
 * page is read as ids and versions; entries `cache` holds at those versions come from it, and only
 * the others are read, by id, made into bytes by `bytesOf` and kept. A row updated or deleted
 * between those two reads sends the page back to being read whole, rather than mix versions. With
 * the cache off, the page is read whole, once.
 *
 * @example
 *   const { entries, total } = await versionedPage(cache, accountId, {
 *     whole: () => repo.listThings(db, accountId, query),
 *     versions: () => repo.listThingVersions(db, accountId, query),
 *     byIds: (ids) => repo.thingsByIds(db, accountId, ids),
 *   }, entryBytes);
 *   return offsetListParts(entries, total, query.page);
 */
export async function versionedPage<Row extends RowVersion>(
  cache: RowBytesCache,
  accountId: string,
  reads: VersionedPageReads<Row>,
  bytesOf: (row: Row) => Buffer,
): Promise<{ entries: Buffer[]; total: number }> {
  const whole = async () => {
    const { rows, total } = await reads.whole();
    return {
      entries: rows.map((row) => cache.keep(accountId, row.id, row.row_version, bytesOf(row))),
      total,
    };
  };
  if (!cache.enabled) return whole();
  const { rows: page, total } = await reads.versions();
  const held = page.map((row) => cache.get(accountId, row.id, row.row_version));
  const missing = page.filter((_, index) => held[index] === undefined).map((row) => row.id);
  if (missing.length === 0) return { entries: held as Buffer[], total };
  const read = new Map((await reads.byIds(missing)).map((row) => [row.id, row]));
  const entries: Buffer[] = [];
  for (const [index, version] of page.entries()) {
    const kept = held[index];
    if (kept) {
      entries.push(kept);
      continue;
    }
    const row = read.get(version.id);
    if (row?.row_version !== version.row_version) return whole();
    entries.push(cache.keep(accountId, row.id, row.row_version, bytesOf(row)));
  }
  return { entries, total };
}
