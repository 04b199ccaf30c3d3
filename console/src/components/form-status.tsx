/**
 * Runs a form's API call and reports the outcome: busy while it runs, the API error (with its
 * request id and field details) when it fails, a short confirmation when it succeeds.
 */
import { useState } from 'react';
import { ApiRequestError } from '../api/errors.js';

export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiRequestError | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function run<T>(call: () => Promise<T>, success?: string): Promise<T | undefined> {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const result = await call();
      if (success) setDone(success);
      return result;
    } catch (failure) {
      setError(
        failure instanceof ApiRequestError
          ? failure
          : new ApiRequestError(0, 'client', String(failure), null),
      );
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  const reset = () => {
    setError(null);
    setDone(null);
  };
  return { busy, error, done, run, reset };
}
