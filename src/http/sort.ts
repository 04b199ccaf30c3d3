/**
 * `sort=field:asc|desc` (`field` alone = asc) from a per-endpoint allow-list. The repository maps
 * the field to its column through its own table, so no caller text ever reaches the SQL.
 *
 * @example
 *   parseSort('name:desc', ['name', 'created_at'], 'name:asc') // { field: 'name', direction: 'desc' }
 */
import { ApiError } from './errors.js';

export type SortDirection = 'asc' | 'desc';

export interface Sort<F extends string> {
  field: F;
  direction: SortDirection;
}

export function parseSort<F extends string>(
  raw: string | undefined,
  allowed: readonly F[],
  fallback: `${F}:${SortDirection}`,
  param = 'sort',
): Sort<F> {
  const text = raw === undefined || raw === '' ? fallback : raw;
  const [field = '', direction = 'asc', ...rest] = text.split(':');
  if (!(allowed as readonly string[]).includes(field)) {
    throw ApiError.invalidParam(
      param,
      'invalid_value',
      `cannot sort by "${field}"; allowed: ${allowed.join(', ')}`,
    );
  }
  if (rest.length > 0 || (direction !== 'asc' && direction !== 'desc')) {
    throw ApiError.invalidParam(param, 'invalid_format', 'must be field:asc or field:desc');
  }
  return { field: field as F, direction };
}

/** `order by <column> <dir>, <tiebreak> <dir>` from a field-to-column map owned by the repository. */
export function orderBy<F extends string>(
  sort: Sort<F>,
  columns: Record<F, string>,
  tiebreak: string,
): string {
  const dir = sort.direction === 'desc' ? 'desc' : 'asc';
  return `order by ${columns[sort.field]} ${dir}, ${tiebreak} ${dir}`;
}

/**
 * One key of a list's order. `nulls` is said only where it differs from PostgreSQL's default
 * (nulls last ascending, first descending), which a reversed term then keeps reversed.
 */
export interface OrderTerm {
  column: string;
  direction: SortDirection;
  nulls?: 'first' | 'last';
}

/** A list's whole order, as terms, so that it can also be read backwards (`reversedOrder`). */
export type ListOrder = readonly OrderTerm[];

/**
 * The sort's column and then `tiebreaks`, each in the sort's direction.
 *
 * @example
 *   sortOrder({ field: 'name', direction: 'desc' }, { name: 'c.name' }, 'c.id')
 *   // [{ column: 'c.name', direction: 'desc' }, { column: 'c.id', direction: 'desc' }]
 */
export function sortOrder<F extends string>(
  sort: Sort<F>,
  columns: Record<F, string>,
  ...tiebreaks: string[]
): OrderTerm[] {
  return [columns[sort.field], ...tiebreaks].map((column) => ({ column, direction: sort.direction }));
}

export function orderSql(order: ListOrder): string {
  return `order by ${order
    .map((term) => `${term.column} ${term.direction}${term.nulls ? ` nulls ${term.nulls}` : ''}`)
    .join(', ')}`;
}

/** The same order from its other end: every direction and every explicit nulls placement flipped. */
export function reversedOrder(order: ListOrder): OrderTerm[] {
  return order.map((term) => ({
    column: term.column,
    direction: term.direction === 'asc' ? 'desc' : 'asc',
    ...(term.nulls ? { nulls: term.nulls === 'first' ? 'last' : 'first' } : {}),
  }));
}
