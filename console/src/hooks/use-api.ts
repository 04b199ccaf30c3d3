/**
 * Loads one API resource for a view and keeps loading/error state, cancelling the previous call
 * when the path or query changes (fast paging never shows a stale page).
 *
 * @example
 *   const { data, error, loading, reload } = useApi<PageList<Cluster>>(`/accounts/${id}/clusters`, { page });
 */
import { useCallback, useEffect, useState } from 'react';
import { ApiRequestError, api, type Query, queryString } from '../api/client.js';

export interface ApiState<T> {
  data: T | undefined;
  error: ApiRequestError | undefined;
  loading: boolean;
  reload: () => void;
}

/** `path` null: nothing to load yet (e.g. waiting for a selection). */
export function useApi<T>(path: string | null, query: Query = {}): ApiState<T> {
  const key = path === null ? null : `${path}${queryString(query)}`;
  const [state, setState] = useState<{ key: string | null; data?: T; error?: ApiRequestError }>({
    key: null,
  });
  const [generation, setGeneration] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for path and query; `generation` forces a reload
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    api<T>('GET', path, { query, signal: controller.signal }).then(
      (data) => setState({ key, data }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({
          key,
          error:
            error instanceof ApiRequestError ? error : new ApiRequestError(0, 'client', String(error), null),
        });
      },
    );
    return () => controller.abort();
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  const current = state.key === key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: key !== null && (!current || (state.data === undefined && state.error === undefined)),
    reload,
  };
}
