/**
 * The matches of a list's searches, kept under the list's generation (docs/performance.md,
 * "Fix 63").
 *
 * A searched page counts every match for its `total_count`, however small the page: `q=svc-12` on
 * the large benchmark account matches 8,888 of 228,136 containers, 14 ms of PostgreSQL a page. A
 * client paging through a search, and a console refreshing one, ask the same search again while the
 * list stays as it was. The matches' ids are kept, in the list's order, with the list's generation
 * as the search read it in its own snapshot (keptGenerationOf); a later page of the same search is
 * a slice of them, read by primary key by a statement that compares the generation in its own
 * snapshot and reads nothing if it moved. A moved generation costs a search again, never a wrong
 * page or total.
 *
 * Memory is bounded: a search with more than `maxIdsPerSearch` matches is not kept, and at most
 * `maxIds` ids are kept in all, the least recently used search dropped first. Ids are kept as one
 * text of uuids joined by commas: 37 bytes an id, and a slice of them is a substring.
 *
 * @example
 *   const matches = new SearchedMatches();
 *   matches.keep('acct/inventory_containers/%svc-12%', 'g7', 'id1,id2,id3');
 *   matches.get('acct/inventory_containers/%svc-12%') // { generation: 'g7', ids: 'id1,...', count: 3 }
 */

/** A uuid's text and the comma after it. */
const ID_WIDTH = 37;

export interface KeptMatches {
  /** the list's generation when the search ran */
  generation: string;
  /** the matches' ids in the list's order, joined by commas */
  ids: string;
  count: number;
}

export interface SearchedMatchesOptions {
  /** ids kept over all searches, the least recently used search dropped first */
  maxIds?: number;
  /** the most matches a search may have to be kept */
  maxIdsPerSearch?: number;
}

export class SearchedMatches {
  /** least recently used first */
  private readonly searches = new Map<string, KeptMatches>();
  private held = 0;
  readonly maxIds: number;
  readonly maxIdsPerSearch: number;

  constructor({ maxIds = 250_000, maxIdsPerSearch = 50_000 }: SearchedMatchesOptions = {}) {
    this.maxIds = maxIds;
    this.maxIdsPerSearch = Math.min(maxIdsPerSearch, maxIds);
  }

  /** The matches kept for the search `name` (its account, list and pattern), if any. */
  get(name: string): KeptMatches | undefined {
    const kept = this.searches.get(name);
    if (kept === undefined) return undefined;
    this.searches.delete(name);
    this.searches.set(name, kept);
    return kept;
  }

  /** Keeps the ids (joined by commas) a search found under `generation`, if they are few enough. */
  keep(name: string, generation: string, ids: string): void {
    this.forget(name);
    const count = ids === '' ? 0 : (ids.length + 1) / ID_WIDTH;
    if (!Number.isInteger(count)) throw new Error('kept matches must be uuids joined by commas');
    if (count > this.maxIdsPerSearch) return;
    this.searches.set(name, { generation, ids, count });
    this.held += count;
    for (const [oldest, kept] of this.searches) {
      if (this.held <= this.maxIds) break;
      this.searches.delete(oldest);
      this.held -= kept.count;
    }
  }

  /** Drops the matches kept for `name`: their generation moved. */
  forget(name: string): void {
    const kept = this.searches.get(name);
    if (kept === undefined) return;
    this.searches.delete(name);
    this.held -= kept.count;
  }

  /** What is held, for tests and diagnostics. */
  get size(): { searches: number; ids: number } {
    return { searches: this.searches.size, ids: this.held };
  }
}

/** The ids at positions `from` (included) to `to` (excluded) of kept matches, clamped to them. */
export function keptIdsBetween(kept: KeptMatches, from: number, to: number): string[] {
  const start = Math.max(0, Math.min(from, kept.count));
  const end = Math.max(start, Math.min(to, kept.count));
  if (start === end) return [];
  return kept.ids.slice(start * ID_WIDTH, end * ID_WIDTH - 1).split(',');
}
