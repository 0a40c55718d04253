import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api-client';

export type Loaded<T> =
  | { state: 'loading'; data?: undefined; error?: undefined }
  | { state: 'ok'; data: T; error?: undefined }
  | { state: 'error'; data?: undefined; error: ApiError };

/**
 * How a page fetches: `useApi(() => api.get(...), [deps])` gives loading / ok / error and a `reload`.
 * A stale answer (the deps changed while it was in flight) is dropped. Render the result with <Loader>.
 */
export function useApi<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> & { reload: () => void } {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setResult({ state: 'ok', data }),
      (error: unknown) => current && setResult({ state: 'error', error: toApiError(error) }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...result, reload };
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, [{ title: 'error', detail: error instanceof Error ? error.message : String(error) }]);
}
