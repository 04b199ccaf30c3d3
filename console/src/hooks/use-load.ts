/**
 * Runs an async load that needs several API calls (the overview's counts), with the same
 * loading/error state as useApi and cancellation when its key changes.
 */
import { useEffect, useState } from 'react';
import { ApiRequestError } from '../api/errors.js';

export function useLoad<T>(key: string, load: (signal: AbortSignal) => Promise<T>) {
  const [state, setState] = useState<{ key?: string; data?: T; error?: ApiRequestError }>({});
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names everything `load` depends on
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal).then(
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
  }, [key]);
  const current = state.key === key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: !current,
  };
}
