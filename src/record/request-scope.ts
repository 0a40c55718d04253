import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of work serves, for the audit trail's `request.id` (HCP's; the same id as the answer's
 * `X-Request-Id` and the request log's, so an entry and its log line meet). The HTTP layer opens the scope
 * just before a handler runs (after the body is read, whose stream events would lose it); everything the
 * handler awaits sees it. Work outside a request (jobs) has none.
 */
const scope = new AsyncLocalStorage<string>();

export function inRequestScope<T>(requestId: string, work: () => T): T {
  return scope.run(requestId, work);
}

export function currentRequestId(): string | null {
  return scope.getStore() ?? null;
}
