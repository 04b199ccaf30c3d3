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
 * page or total. The inventory containers and the inventory packages keep the matches of `q` alone
 * in name order, one instance for both (services.ts); their page statements carry the matches
 * (carriedMatchesColumns) and read a later page from them (pageFromKeptMatches).
 *
 * A kept search is named by its account: every caller whose scope admits an account sees the same
 * rows of it (scope is tenant- or account-wide, DESIGN.md 4), so one caller's matches may serve
 * another's page. A finer scope would have to be part of the name. The page statement still reads
 * its rows under the caller's scope, and any id it cannot read makes the page search again.
 *
 * Memory is bounded: a search with more than `maxIdsPerSearch` matches is not kept, and at most
 * `maxIds` ids are kept in all, the least recently used search dropped first. Ids are kept as one
 * text of uuids joined by commas: 37 bytes an id, and a slice of them is a substring.
 *
 * @example
 *   const matches = new SearchedMatches();
 *   matches.keep(`${accountId}/inventory_containers/%svc-12%`, generation, ids.join(','));
 *   const kept = matches.get(`${accountId}/inventory_containers/%svc-12%`); // { generation, ids, count }
 *   keptIdsBetween(kept!, 100, 200) // the second page's ids, in the list's order
 */

import { containsPattern } from '../../http/search.js';

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

/**
 * The name under which a search's matches are kept: its account, its list and its pattern as
 * written. PostgreSQL folds the pattern's case under the database's collation, which JavaScript's
 * could differ from: `DUP` and `dup` are kept apart.
 */
export function searchName(accountId: string, list: string, q: string): string {
  return `${accountId}/${list}/${containsPattern(q)}`;
}

/** The largest array subscript PostgreSQL takes (int4); no array of ids reaches it. */
const MAX_SUBSCRIPT = 2_147_483_647;

/**
 * A page of a search as a slice of `array`, the matches' ids in the list's ascending order:
 * backwards from the end for a descending page. PostgreSQL clamps a slice's bounds to the array;
 * the bounds are clamped here to its subscripts' range, so that a page far past the end (the
 * offset is the client's) is an empty slice, not an integer out of range.
 */
export function matchesSliceSql(
  array: string,
  page: { offset: number; limit: number },
  direction: 'asc' | 'desc',
) {
  const bound = (n: number) => Math.min(n, MAX_SUBSCRIPT);
  const { offset, limit } = page;
  return direction === 'asc'
    ? `${array}[${bound(offset + 1)}:${bound(offset + limit)}]`
    : `${array}[cardinality(${array}) - ${bound(offset + limit - 1)}:cardinality(${array}) - ${bound(offset)}]`;
}

/**
 * The `with` of a page sliced from its search's matches: `m.ids`, the matches' ids (`ids`, a
 * `uuid[]` in the list's order), and, for a page that carries them to be kept, `m.generation`, the
 * list's generation (`generation`, a select) read in the same snapshot: what matchesSliceSql and
 * carriedMatchesColumns read. Materialized: as a plain sub-select PostgreSQL would write the search
 * into each use of `m.ids` and run it twice.
 */
export function matchesCte(ids: string, generation: string | undefined): string {
  return `with m as materialized (select ${ids} as ids${generation ? `, (${generation}) as generation` : ''})`;
}

/**
 * The columns a searched page's statement adds to carry its search's matches for keeping
 * (keepCarriedMatches), on the page's first row: the ids of `m.ids` as text, and `m.generation`
 * (matchesCte). `position`
 * is the row's place in the page's slice of `m.ids`. A search with more matches than one may
 * keep carries no ids.
 */
export function carriedMatchesColumns(searches: SearchedMatches, position: string): string {
  return `, case when ${position} = 1 then m.generation end as search_generation,
            case when ${position} = 1 and cardinality(m.ids) <= ${searches.maxIdsPerSearch}
                 then array_to_string(m.ids, ',') end as search_ids`;
}

/** A page's rows as read with carriedMatchesColumns. */
export type WithCarriedMatches<Row> = Row & { search_generation?: string | null; search_ids?: string | null };

/** Keeps the matches a searched page's rows carry under `name`, and returns the rows without them. */
export function keepCarriedMatches<Row>(
  searches: SearchedMatches,
  name: string,
  read: KeptPage<WithCarriedMatches<Row>>,
): KeptPage<Row> {
  const carrier = read.rows.find((row) => row.search_ids != null);
  if (carrier?.search_generation) searches.keep(name, carrier.search_generation, carrier.search_ids!);
  return {
    rows: read.rows.map(({ search_generation: _, search_ids: __, ...row }) => row as unknown as Row),
    total: read.total,
  };
}

/** A page of a list read from kept matches, or by the list's own statement. */
export interface KeptPage<Row> {
  rows: Row[];
  total: number;
}

/**
 * A page of a search read from the matches kept under `name`: `read` reads the rows of the page's
 * ids, in that order, under the kept generation (a statement that reads nothing once the list's
 * generation has moved). Undefined when nothing is kept, when the page is past the matches' end
 * (a search then counts them), or when the generation moved: the matches are then forgotten.
 */
export async function pageFromKeptMatches<Row>(
  searches: SearchedMatches,
  name: string,
  page: { offset: number; limit: number },
  direction: 'asc' | 'desc',
  read: (ids: string[], generation: string) => Promise<Row[]>,
): Promise<KeptPage<Row> | undefined> {
  const kept = searches.get(name);
  if (kept === undefined) return undefined;
  const { offset, limit } = page;
  // The ids are kept in the list's ascending order: a descending page is read back from the end.
  const ids =
    direction === 'asc'
      ? keptIdsBetween(kept, offset, offset + limit)
      : keptIdsBetween(kept, kept.count - offset - limit, kept.count - offset).reverse();
  if (ids.length === 0) return undefined;
  const rows = await read(ids, kept.generation);
  if (rows.length === ids.length) return { rows, total: kept.count };
  searches.forget(name);
  return undefined;
}

/** The ids at positions `from` (included) to `to` (excluded) of kept matches, clamped to them. */
export function keptIdsBetween(kept: KeptMatches, from: number, to: number): string[] {
  const start = Math.max(0, Math.min(from, kept.count));
  const end = Math.max(start, Math.min(to, kept.count));
  if (start === end) return [];
  return kept.ids.slice(start * ID_WIDTH, end * ID_WIDTH - 1).split(',');
}
