/**
 * The list envelopes of the description, built from one page of rows plus the true total.
 * Every list query orders by its sort field and then by id, so pages never skip or repeat a row.
 */
export interface OffsetPage {
  limit: number;
  offset: number;
}

export interface OffsetListBody<T> {
  entries: T[];
  has_more: boolean;
  total_count: number;
}

/** Whether rows lie past the `returned` rows of this page. */
const hasMore = (page: OffsetPage, returned: number, total: number) => page.offset + returned < total;

export function offsetList<T>(entries: T[], total: number, page: OffsetPage): OffsetListBody<T> {
  return { entries, has_more: hasMore(page, entries.length, total), total_count: total };
}

export function tenantOffsetList<T>(entries: T[], total: number, page: OffsetPage) {
  return { current_offset: page.offset, ...offsetList(entries, total, page) };
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

export const pageToOffset = ({ page, pageSize }: PageRequest): OffsetPage => ({
  limit: pageSize,
  offset: (page - 1) * pageSize,
});

export function pageList<T>(entries: T[], total: number, request: PageRequest) {
  return {
    entries,
    page: request.page,
    page_count: Math.ceil(total / request.pageSize),
    page_size: request.pageSize,
    total_count: total,
  };
}

/**
 * pageList's body as text parts, for a page sent piece by piece: `{"entries":[`, each entry's
 * parts with commas between entries, then the page's fields, as `JSON.stringify(pageList(...))`
 * would write them.
 */
export function pageListParts<P>(
  entries: readonly (readonly P[])[],
  total: number,
  request: PageRequest,
): (P | string)[] {
  const { page, page_count, page_size, total_count } = pageList([], total, request);
  const parts: (P | string)[] = ['{"entries":['];
  entries.forEach((entry, index) => {
    if (index > 0) parts.push(',');
    parts.push(...entry);
  });
  parts.push(
    `],"page":${page},"page_count":${page_count},"page_size":${page_size},"total_count":${total_count}}`,
  );
  return parts;
}

/**
 * offsetList's body as parts, for a page sent piece by piece: `{"entries":[`, the entries with
 * commas between them, then the envelope's fields, as `JSON.stringify(offsetList(...))` writes
 * them.
 */
export function offsetListParts<P>(entries: readonly P[], total: number, page: OffsetPage): (P | string)[] {
  const more = hasMore(page, entries.length, total);
  return enclosedParts('{"entries":[', entries, `],"has_more":${more},"total_count":${total}}`);
}

/** A bare JSON array of entries given as parts (a list without an envelope): `[`, the entries with commas, `]`. */
export function jsonArrayParts<P>(entries: readonly P[]): (P | string)[] {
  return enclosedParts('[', entries, ']');
}

/** `head`, the entries with commas between them, `tail`: one part each. */
function enclosedParts<P>(head: string, entries: readonly P[], tail: string): (P | string)[] {
  const parts: (P | string)[] = [head];
  entries.forEach((entry, index) => {
    if (index > 0) parts.push(',');
    parts.push(entry);
  });
  parts.push(tail);
  return parts;
}

/**
 * The two envelopes as JSON text around entries that are JSON text already (entries written by
 * PostgreSQL, db/entry-json.ts): the bytes `JSON.stringify` writes for offsetList and pageList.
 */
export function offsetListText(entries: readonly string[], total: number, page: OffsetPage): string {
  const more = hasMore(page, entries.length, total);
  return `{"entries":[${entries.join(',')}],"has_more":${more},"total_count":${total}}`;
}

export function pageListText(entries: readonly string[], total: number, request: PageRequest): string {
  return pageListParts(
    entries.map((entry) => [entry]),
    total,
    request,
  ).join('');
}
