/**
 * One offset page of a list, read from whichever end of the list is nearer (docs/performance.md,
 * "Fix 17a").
 *
 * An offset page costs PostgreSQL a walk over every row before it: page 900 of 1,000 reads 90,100
 * index entries to return 100. Where the list's total is kept (an unfiltered list,
 * modules/list-totals), a page past the middle is read backwards instead: the same rows in the
 * reversed order, skipping `total - offset - limit` from the end, so no page walks more than half
 * the list. The choice is made by PostgreSQL at execution, in the page's own statement and
 * snapshot: both readings are written as branches of a UNION ALL, each gated by a condition on the
 * kept total that holds for exactly one of them (a one-time filter: the other branch is never
 * executed). The page is cut from the total of its own snapshot, so it holds exactly the rows a
 * forward read of that snapshot returns.
 *
 * A filtered list without a kept total (most filters; one severity of packages is kept, 0048)
 * counts its filtered rows for `total_count` anyway, a walk at least as long as the page's, so it
 * is always read forwards.
 *
 * A list that bookmarks its pages (page-bookmarks.ts) may offer a third reading: from a row seen
 * at an offset at or before the page's, skipping the rows between. It is gated the same way, on
 * the list's generation: it runs only where the list is still as it was when the row was seen, and
 * the other two only where it is not.
 *
 * The subquery's rows come in no particular order: the caller orders them by `order`, as a
 * deferred join already does when it fetches the page's rows by key.
 *
 * @example
 *   const order = sortOrder(query.sort, SORT_COLUMNS, 'c.id');
 *   const keys = pageRange(where, {
 *     rows: `select c.account_id, c.id from inventory_containers c where ${where.sql}`,
 *     order,
 *     page: query.page,
 *     keptTotal: where.filtered ? undefined : keptTotalOf(accountId, 'inventory_containers'),
 *   });
 *   const sql = `select ... from ${keys} k join inventory_containers c on ... ${orderSql(order)}`;
 */
import type { OffsetPage } from '../../http/paging.js';
import { type ListOrder, orderSql, reversedOrder } from '../../http/sort.js';
import type { Where } from '../resources/where.js';
import type { KeptTotalValue } from './repository.js';

export interface PageRange {
  /** `select <columns> from <table> <alias> where <the list's clauses>`: the rows paged through */
  rows: string;
  /** the list's order; the page's rows are these, and the caller sorts them by it */
  order: ListOrder;
  page: OffsetPage;
  /**
   * The list's kept total (keptTotalOf), when it is kept: only then may the page be read from the
   * end. Undefined for a list whose filter is counted.
   */
  keptTotal?: KeptTotalValue | undefined;
  /**
   * A row the list held at an offset at or before the page's, under a generation of the list
   * (page-bookmarks.ts): where the list is still at that generation, the page is read from that row
   * on, skipping `skip` rows. Only for an order whose terms share one direction and hold no nulls
   * (a row comparison must order as the list does).
   */
  bookmark?: PageBookmarkSql | undefined;
}

/**
 * The SQL of a bookmark, written only if the page uses it: its values are bound on the statement's
 * `where` then, since an unused parameter has no type PostgreSQL could infer.
 */
export interface PageBookmarkSql {
  /** true when the list is at the bookmark's generation */
  unchanged: (where: Where) => string;
  /**
   * `from <table> <alias> where ...`: the bookmarked row alone, under the alias the order's columns
   * name; pageRange selects the order's columns from it.
   */
  row: (where: Where) => string;
  /** the rows between the bookmarked one and the page's first */
  skip: number;
}

/**
 * A row count written into the statement rather than bound: PostgreSQL keeps a statement's generic
 * plan only when it costs no more than the plans made for its values, and a plan for an unknown
 * LIMIT or OFFSET is costed as if it read a tenth of the table, so a page bound as parameters was
 * planned again on every execution (docs/performance.md, "Fix 37"). The counts are validated
 * integers below 2^53 * 1000 (request-validation.ts, paging.ts), which print as plain digits and
 * fit a bigint.
 */
export function rowCountLiteral(count: number): string {
  if (!Number.isInteger(count) || count < 0 || count >= 2 ** 63) {
    throw new Error(`pageRange: not a row count: ${count}`);
  }
  return `${BigInt(count)}::bigint`;
}

/** The page's rows as a parenthesized subquery, in no particular order; binds its values on `where`. */
export function pageRange(where: Where, range: PageRange): string {
  const limit = rowCountLiteral(range.page.limit);
  const offset = rowCountLiteral(range.page.offset);
  const fromStart = `${range.rows} ${orderSql(range.order)} limit ${limit} offset ${offset}`;
  // Page 1 has nothing to skip from either end: its statement stays the plain forward read.
  if (range.keptTotal === undefined || range.page.offset === 0) return `(${fromStart})`;
  const total = `coalesce((${range.keptTotal(where)})::bigint, 0)`;
  // Forwards the walk is offset + limit rows long; backwards, total - offset.
  const nearerStart = `${total} - ${offset} >= ${offset} + ${limit}`;
  // Past the end the backward limit would go negative: an empty page, as the forward read gives.
  const fromEnd = `${range.rows} ${orderSql(reversedOrder(range.order))}
      limit greatest(least(${limit}, ${total} - ${offset}), 0)
      offset greatest(${total} - ${offset} - ${limit}, 0)`;
  // The outer limit changes no row (each branch returns at most `limit`) but tells the planner so:
  // the backward limit is an expression it cannot estimate, and taking the page for thousands of
  // rows it joined them to their table by hashing every row of it (236 ms, against 2 ms).
  if (range.bookmark === undefined) {
    return `(select * from (select * from (${fromStart}) from_start where ${nearerStart}
      union all
      select * from (${fromEnd}) from_end where not (${nearerStart})) either_end limit ${limit})`;
  }
  // A third reading, from the bookmarked row, for a list still at the bookmark's generation; the
  // other two only when it is not (a generation PostgreSQL cannot read is not the bookmark's).
  const unchanged = range.bookmark.unchanged(where);
  const fromBookmark = `${range.rows} and ${atOrAfter(range.order, range.bookmark.row(where))}
      ${orderSql(range.order)} limit ${limit} offset ${rowCountLiteral(range.bookmark.skip)}`;
  return `(select * from (select * from (${fromBookmark}) from_bookmark where (${unchanged}) is true
      union all
      select * from (${fromStart}) from_start where (${unchanged}) is not true and ${nearerStart}
      union all
      select * from (${fromEnd}) from_end where (${unchanged}) is not true and not (${nearerStart})
    ) any_reading limit ${limit})`;
}

/**
 * The rows at or after `row` in `order`, as one row comparison, which PostgreSQL reads as a bound
 * of the order's index. It orders as the list only if every term has the same direction and
 * PostgreSQL's default null placement, and no column holds nulls: the caller's to ensure.
 */
function atOrAfter(order: ListOrder, row: string): string {
  const direction = order[0]?.direction;
  if (order.some((term) => term.direction !== direction || term.nulls !== undefined)) {
    throw new Error('pageRange: a bookmark needs an order of one direction');
  }
  const columns = order.map((term) => term.column).join(', ');
  return `(${columns}) ${direction === 'asc' ? '>=' : '<='} (select ${columns} ${row})`;
}
