/**
 * A view's filters, search, sort and page, kept in the URL's search string so the view can be
 * bookmarked and shared. Changing a filter goes back to the first page.
 *
 * @example
 *   const [query, setQuery] = useUrlQuery();
 *   setQuery({ q: 'nginx' });            // ?q=nginx (page and offset dropped)
 *   setQuery({ page: '3' }, { keepPaging: true });
 */
import { navigate, useLocation } from '../router.js';

const PAGING_KEYS = ['page', 'offset'];

export type UrlQuery = Record<string, string | undefined>;

export function useUrlQuery(): [
  UrlQuery,
  (patch: UrlQuery, options?: { keepPaging?: boolean; replace?: boolean }) => void,
] {
  const { path, search } = useLocation();
  const query: UrlQuery = Object.fromEntries(search.entries());

  function setQuery(patch: UrlQuery, options: { keepPaging?: boolean; replace?: boolean } = {}) {
    const next = new URLSearchParams(search);
    if (!options.keepPaging) for (const key of PAGING_KEYS) next.delete(key);
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined || value === '') next.delete(key);
      else next.set(key, value);
    }
    const text = next.toString();
    navigate(`${path}${text ? `?${text}` : ''}`, { replace: options.replace ?? false });
  }

  return [query, setQuery];
}

/** A positive integer from the URL, or the fallback. */
export function intParam(value: string | undefined, fallback: number, min = 1, max = 1000): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed >= min && parsed <= max ? parsed : fallback;
}
