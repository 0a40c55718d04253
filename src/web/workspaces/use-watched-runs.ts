import { useEffect, useState } from 'preact/hooks';
import { segment, type ApiClient, type ApiError } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { toApiError } from '../api/use-api';
import type { RunAttributes } from '../runs/run-types';

/** How long one waiting read may last (the server shortens it to TEAMSTAGE_RUN_WAIT_MAX). */
const WAIT_SECONDS = '30';
/** After a failed read, wait this long (doubling, at most MAX) before the next: a restarting server is not hammered. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

export type RunList = ListDocument<RunAttributes>;

/**
 * A workspace's newest runs, kept current while the page is open by one waiting read at a time
 * (`GET /workspaces/:id/runs?wait=…&wait-token=…`): the server answers as soon as a run is added or changes
 * (its change signals wake it), and the next read starts at once. One read per page, not one per run; it is
 * aborted when the page goes. A failed read keeps the last list and retries with a growing pause.
 */
export function useWatchedRuns(api: ApiClient, workspaceId: string, pageSize = 50) {
  const [list, setList] = useState<RunList | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    let token: string | undefined;
    let pause = RETRY_FIRST_MS;
    setList(null);
    setError(null);
    void (async () => {
      while (!controller.signal.aborted) {
        try {
          const query: Record<string, string> = { 'page[size]': String(pageSize) };
          if (token) Object.assign(query, { wait: WAIT_SECONDS, 'wait-token': token });
          const document = await api.get<RunList & { meta?: { 'wait-token'?: string } }>(`/workspaces/${segment(workspaceId)}/runs`, query, { signal: controller.signal });
          if (controller.signal.aborted) return;
          setList(document);
          setError(null);
          token = document.meta?.['wait-token'];
          pause = RETRY_FIRST_MS;
          // A server without waiting reads (no token) is read again after a pause instead of in a tight loop.
          if (!token) await sleep(pause * 3, controller.signal);
        } catch (caught) {
          if (controller.signal.aborted) return;
          setError(toApiError(caught));
          await sleep(pause, controller.signal);
          pause = Math.min(RETRY_MAX_MS, pause * 2);
        }
      }
    })();
    return () => controller.abort();
  }, [api, workspaceId, pageSize]);
  return { list, error };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
