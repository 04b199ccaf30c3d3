/**
 * The one way the console talks to the API: same origin, the session in its HttpOnly cookie
 * (never visible here), and `x-posture-console: 1` on every call, which the server requires of
 * cookie-authenticated writes from a browser (CSRF guard, docs/console.md).
 *
 * @example
 *   const clusters = await api<PageList<Cluster>>('GET', `/accounts/${id}/clusters`, { query: { page: 2 } });
 */
import { ApiRequestError, errorFromResponse, unreachable } from './errors.js';

export type QueryValue = string | number | boolean | undefined | null;
export type Query = Record<string, QueryValue>;

export interface CallOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not announce an ended session (sign-in itself, the first probe). */
  quiet?: boolean;
}

type SessionEndedListener = (error: ApiRequestError) => void;
const sessionEndedListeners = new Set<SessionEndedListener>();

/** Called when any call learns that the session expired or was ended. */
export function onSessionEnded(listener: SessionEndedListener): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

/** Tells the console the session is gone (any call that learns it, the file download included). */
export function announceSessionEnded(error: ApiRequestError): void {
  for (const listener of sessionEndedListeners) listener(error);
}

/** Empty values are left out: the API reads `q=` as "not given" anyway. */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export async function api<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-posture-console': '1' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${path}${queryString(options.query)}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw unreachable(cause);
  }
  if (!response.ok) {
    const error = await errorFromResponse(response);
    if (error.endsSession && !options.quiet) announceSessionEnded(error);
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export { ApiRequestError };
