/**
 * Bookmarks into a list's pages: which row stood at which offset, under which generation of the
 * list (docs/performance.md, "Fix 53").
 *
 * An offset page costs PostgreSQL a walk over every row before it (or after it, read from the end:
 * page-range.ts), so a client paging through a million resources walks up to half a million index
 * entries a page, a quarter of a million on average: the whole export is quadratic in the list.
 * A page whose offset is at or just past a row the server has seen at a known offset is read by
 * seeking to that row in the list's index and skipping the few rows between: sequential pages, and
 * a page read again, walk no more than a page.
 *
 * The live resources, the packages and the containers keep their generations (migrations 0054 to
 * 0056); another list takes bookmarks once its writers keep one.
 *
 * A bookmark holds only while the list is exactly as it was when the bookmark was taken: the list's
 * generation (a text PostgreSQL computes from what its writers count) is kept with it, and the
 * page statement seeks from the bookmark only if the generation it reads in its own snapshot is the
 * same; otherwise it walks as before. A stale bookmark therefore costs a walk, never a wrong page.
 *
 * Memory is bounded: at most `maxLists` lists (least recently used dropped first), each with at
 * most `marksPerList` offsets (the oldest recorded dropped first). Lists are named by their account,
 * their table and their order, so one account's bookmarks are never offered for another's list.
 *
 * Pages before `fromOffset` take no bookmarks: reading the generation costs a page statement about
 * what walking a few hundred index entries does, 12 to 23% of page 1's rate, so a page with a
 * shorter walk than that reads as it did before bookmarks (docs/performance.md, "Fix 54").
 *
 * @example
 *   const marks = new PageBookmarks();
 *   marks.forPageAt(1900) // marks; forPageAt(900) is undefined: that page reads as without bookmarks
 *   marks.record('acct/resources/name:asc', 'c1:7', 5000, [{ offset: 1900, key: 'c1/r-42' }]);
 *   marks.nearest('acct/resources/name:asc', 1950) // { generation: 'c1:7', offset: 1900, key: 'c1/r-42' }
 */
import type { Sort } from '../../http/sort.js';
import type { Where } from '../resources/where.js';
import type { PageBookmarkSql } from './page-range.js';
import { type GenerationList, keptGenerationOf } from './repository.js';

export interface Bookmark {
  /** the list's generation when the row was seen at `offset` */
  generation: string;
  offset: number;
  /** the row's key, as the list's repository names it */
  key: string;
}

interface ListMarks {
  generation: string;
  /** the list's total under that generation */
  total: number;
  /** row key by offset, oldest recorded first */
  keys: Map<number, string>;
}

export interface PageBookmarksOptions {
  /** lists kept, least recently used dropped first */
  maxLists?: number;
  /** offsets kept per list, oldest recorded dropped first */
  marksPerList?: number;
  /** the first offset whose pages read the generation, seek from bookmarks and record them */
  fromOffset?: number;
}

export class PageBookmarks {
  /** least recently used first */
  private readonly lists = new Map<string, ListMarks>();
  private readonly maxLists: number;
  private readonly marksPerList: number;
  private readonly fromOffset: number;

  constructor({ maxLists = 1000, marksPerList = 32, fromOffset = 1000 }: PageBookmarksOptions = {}) {
    this.maxLists = maxLists;
    this.marksPerList = marksPerList;
    this.fromOffset = fromOffset;
  }

  /** These bookmarks, if a page at `offset` takes them; undefined before `fromOffset`. */
  forPageAt(offset: number): PageBookmarks | undefined {
    return offset >= this.fromOffset ? this : undefined;
  }

  /**
   * The bookmark at or before `offset` from which the page walks fewer rows than it would without
   * one (from the nearer end of the list, knowing its total), if any.
   */
  nearest(list: string, offset: number): Bookmark | undefined {
    const marks = this.lists.get(list);
    if (marks === undefined) return undefined;
    this.lists.delete(list);
    this.lists.set(list, marks);
    let best: number | undefined;
    for (const at of marks.keys.keys()) {
      if (at <= offset && (best === undefined || at > best)) best = at;
    }
    if (best === undefined) return undefined;
    const walkWithout = Math.min(offset, Math.max(marks.total - offset, 0));
    if (offset - best >= walkWithout) return undefined;
    return { generation: marks.generation, offset: best, key: marks.keys.get(best)! };
  }

  /** Rows seen at their offsets in the list at `generation`, whose total was `total`. */
  record(list: string, generation: string, total: number, seen: readonly { offset: number; key: string }[]) {
    let marks = this.lists.get(list);
    if (marks === undefined || marks.generation !== generation) {
      marks = { generation, total, keys: new Map() };
    }
    this.lists.delete(list);
    this.lists.set(list, marks);
    for (const { offset, key } of seen) {
      marks.keys.delete(offset);
      marks.keys.set(offset, key);
    }
    for (const oldest of marks.keys.keys()) {
      if (marks.keys.size <= this.marksPerList) break;
      marks.keys.delete(oldest);
    }
    for (const oldest of this.lists.keys()) {
      if (this.lists.size <= this.maxLists) break;
      this.lists.delete(oldest);
    }
  }
}

/** How a list's page statement reads its generation and finds a bookmarked row. */
export interface BookmarkedList {
  /** the list's name in the bookmarks: its account, table and order */
  name: string;
  /** the list's generation as a scalar subquery, bound on the statement's `where` */
  generation: (where: Where) => string;
  /** `from <table> <alias> where ...`: the row of `key` alone (PageBookmarkSql.row), bound on `where` */
  row: (key: string, where: Where) => string;
}

/**
 * The account's list kept with a generation (keptGenerationOf), in `sort`: named by its account,
 * table and order, so one list's bookmarks are never offered for another's.
 */
export function bookmarkedList(
  accountId: string,
  list: GenerationList,
  sort: Sort<string>,
  row: BookmarkedList['row'],
): BookmarkedList {
  return {
    name: `${accountId}/${list}/${sort.field}:${sort.direction}`,
    generation: keptGenerationOf(accountId, list),
    row,
  };
}

/** The nearest bookmark of the page's list as SQL for pageRange, if one shortens its walk. */
export function bookmarkSql(
  bookmarks: PageBookmarks,
  list: BookmarkedList,
  offset: number,
): PageBookmarkSql | undefined {
  const mark = bookmarks.nearest(list.name, offset);
  if (mark === undefined) return undefined;
  return {
    unchanged: (where) => `(${list.generation(where)}) = ${where.next(mark.generation)}`,
    row: (where) => list.row(mark.key, where),
    skip: offset - mark.offset,
  };
}

/** A page's row as read with the list's generation beside it (generationColumn). */
export type WithGeneration<Row> = Row & { id: string; list_generation?: string | null };

/**
 * The column a bookmarked page's select adds: the list's generation, read in the statement's own
 * snapshot, on each row, which bookmarkPage takes off again.
 */
export function generationColumn(list: BookmarkedList, where: Where): string {
  return `, (${list.generation(where)}) as list_generation`;
}

/**
 * Keeps the first and last rows of a page read at `offset` as bookmarks of the generation the
 * statement read, and returns its rows without that column.
 */
export function bookmarkPage<Row extends { id: string }>(
  bookmarks: PageBookmarks,
  list: BookmarkedList,
  offset: number,
  read: { rows: WithGeneration<Row>[]; total: number },
): { rows: Row[]; total: number } {
  const rows = read.rows.map(({ list_generation: _, ...row }) => row as unknown as Row);
  const first = read.rows[0];
  const last = rows[rows.length - 1];
  if (first?.list_generation && last) {
    bookmarks.record(list.name, first.list_generation, read.total, [
      { offset, key: first.id },
      { offset: offset + rows.length - 1, key: last.id },
    ]);
  }
  return { rows, total: read.total };
}
