/**
 * A table of API entries with optional sortable columns. Sorting is the API's `sort=field:dir`:
 * the header buttons only ask for a new sort; the view puts it in the URL and reloads.
 */
import type { ReactNode } from 'react';

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ReactNode;
  /** the API sort field, when the column can be sorted */
  sort?: string;
  className?: string;
}

export interface SortState {
  field: string;
  direction: 'asc' | 'desc';
}

export function parseSort(value: string | undefined, fallback: SortState): SortState {
  if (!value) return fallback;
  const [field = '', direction = 'asc'] = value.split(':');
  return { field, direction: direction === 'desc' ? 'desc' : 'asc' };
}

export const formatSort = (sort: SortState) => `${sort.field}:${sort.direction}`;

export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  sort,
  onSort,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  sort?: SortState;
  onSort?: (sort: SortState) => void;
}) {
  function ariaSort(column: Column<T>) {
    if (!column.sort || sort?.field !== column.sort) return undefined;
    return sort.direction === 'asc' ? 'ascending' : 'descending';
  }
  function toggle(field: string) {
    if (!onSort) return;
    const direction = sort?.field === field && sort.direction === 'asc' ? 'desc' : 'asc';
    onSort({ field, direction });
  }
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-scroll" aria-label={caption} tabIndex={0}>
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.key} scope="col" aria-sort={ariaSort(column)} className={column.className}>
                {column.sort && onSort ? (
                  <button type="button" className="sort-button" onClick={() => toggle(column.sort as string)}>
                    {column.label}
                    <span className="sort-mark" aria-hidden="true">
                      {sort?.field === column.sort ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}
                    </span>
                  </button>
                ) : (
                  column.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.key} className={column.className} data-label={column.label}>
                  {column.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
