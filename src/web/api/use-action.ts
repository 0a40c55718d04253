import { useState } from 'preact/hooks';
import type { ApiError } from './api-client';
import { toApiError } from './use-api';

/**
 * How a form writes: `const save = useAction(); … save.run(() => api.patch(...), 'Saved.')`. Keeps `busy`
 * (to disable the button), the refusal as an `ApiError` (for `FieldErrors` / `ErrorNotice`) and a short
 * success message for a `role=status` line. `run` resolves to whether it succeeded.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  async function run(action: () => Promise<unknown>, success?: string): Promise<boolean> {
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      await action();
      setMessage(success ?? null);
      return true;
    } catch (caught) {
      setError(toApiError(caught));
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, message, run, clear: () => (setError(null), setMessage(null)) };
}
