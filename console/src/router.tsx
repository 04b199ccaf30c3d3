/**
 * A small history-API router for the console: paths live under /console, the search string holds
 * each view's filters, sort and page, so every view state is a link that can be shared. Links are
 * real <a href> elements (open in a new tab, copy link, keyboard) that skip the page reload.
 *
 * @example
 *   <Link to="/accounts/42/clusters?q=prod">Production clusters</Link>
 *   navigate('/sign-in', { replace: true });
 */
import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

export const BASE = '/console';

const listeners = new Set<() => void>();
function notify() {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** Path below /console (always starting with `/`) and the search string. */
export function currentLocation(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return `${path || '/'}${window.location.search}`;
}

export interface Location {
  path: string;
  search: URLSearchParams;
  /** path + search, as given to navigate() */
  href: string;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, currentLocation);
  const [path = '/', search = ''] = href.split('?', 2);
  return { path, search: new URLSearchParams(search), href };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${to}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.scrollTo?.(0, 0);
  notify();
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const current = useLocation().path;
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Let the browser handle new tabs, downloads and anything already handled.
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    ) {
      return;
    }
    event.preventDefault();
    navigate(to);
  };
  const targetPath = to.split('?')[0];
  return (
    <a
      href={`${BASE}${to}`}
      aria-current={targetPath === current ? 'page' : undefined}
      onClick={handleClick}
      {...rest}
    />
  );
}

/** Matches `accounts/:accountId/clusters` against a path; returns the parameters or null. */
export function matchPattern(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < want.length; index++) {
    const expected = want[index] as string;
    const actual = have[index] as string;
    if (expected.startsWith(':')) {
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}

/** Builds a path from a pattern: fillPattern('accounts/:accountId/users', { accountId }) */
export function fillPattern(pattern: string, params: Record<string, string>): string {
  return `/${pattern
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? encodeURIComponent(params[part.slice(1)] ?? '') : part))
    .join('/')}`;
}
