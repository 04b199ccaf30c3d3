/**
 * Paging controls for the API's two list envelopes: page lists (`page`, `page_count`) and offset
 * lists (`offset`, `has_more`). Both show the true total the API reports.
 */
const SIZES = [25, 50, 100, 200];

function SizeSelect({ value, onChange }: { value: number; onChange: (size: number) => void }) {
  const sizes = SIZES.includes(value) ? SIZES : [...SIZES, value].sort((a, b) => a - b);
  return (
    <label className="pager-size">
      Rows per page{' '}
      <select value={value} onChange={(event) => onChange(Number(event.target.value))}>
        {sizes.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </select>
    </label>
  );
}

export function PagePager({
  page,
  pageCount,
  pageSize,
  total,
  onPage,
  onPageSize,
}: {
  page: number;
  pageCount: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span className="pager-position">
        Page {page} of {Math.max(pageCount, 1)} · {total} {total === 1 ? 'item' : 'items'}
      </span>
      <button type="button" className="button" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
        Next
      </button>
      <SizeSelect value={pageSize} onChange={onPageSize} />
    </nav>
  );
}

export function OffsetPager({
  offset,
  limit,
  total,
  hasMore,
  shown,
  onOffset,
  onLimit,
}: {
  offset: number;
  limit: number;
  total: number;
  hasMore: boolean;
  shown: number;
  onOffset: (offset: number) => void;
  onLimit: (limit: number) => void;
}) {
  const first = shown === 0 ? 0 : offset + 1;
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="button"
        disabled={offset <= 0}
        onClick={() => onOffset(Math.max(0, offset - limit))}
      >
        Previous
      </button>
      <span className="pager-position">
        {first}–{offset + shown} of {total}
      </span>
      <button type="button" className="button" disabled={!hasMore} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
      <SizeSelect value={limit} onChange={onLimit} />
    </nav>
  );
}
