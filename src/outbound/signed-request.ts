import { createHmac } from 'node:crypto';
import { errors, request, type Dispatcher } from 'undici';
import { BUILD_VERSION } from '../core/version.js';

/**
 * The one signed POST of the run task protocol, shared by the verification request on
 * task create/update and by result delivery. Signing covers the exact bytes sent, so callers pass the
 * serialized body and this function never re-serializes it.
 */

/** Hex HMAC-SHA512 of the exact body under the task's key; the header is empty when the task has no key. */
export function signTaskBody(body: string, hmacKey: string | null): string {
  if (hmacKey === null || hmacKey === '') return '';
  return createHmac('sha512', hmacKey).update(body, 'utf8').digest('hex');
}

export const USER_AGENT = `Teamstage/${BUILD_VERSION}`;

export type SignedPostResult = { status: number } | { error: 'timeout' | 'unreachable'; detail: string };

/**
 * POSTs `body` to `url` with the signature header and answers the status, or why there was none.
 * `timeoutMs` bounds the whole exchange (connect, headers, body). undici's request() follows no
 * redirects: a task answering 3xx has not answered 200. Never throws; the HMAC key never appears in `detail`.
 * `dispatcher` decides where connections may go (TaskDestinations); a refused address is an `unreachable`
 * answer whose detail starts with ETASKURLDENIED.
 */
export async function postSignedJson(
  url: string,
  body: string,
  hmacKey: string | null,
  timeoutMs: number,
  dispatcher?: Dispatcher,
  /** Aborts the request when the node stops (the caller then records nothing: see TaskDelivery.deliver). */
  stop?: AbortSignal,
): Promise<SignedPostResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
  try {
    const response = await request(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-tfc-task-signature': signTaskBody(body, hmacKey),
      },
      signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
    // Read (and drop) the body so the connection goes back to the pool.
    await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
    return { status: response.statusCode };
  } catch (error) {
    if (timeout.aborted || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || error instanceof errors.ConnectTimeoutError) {
      return { error: 'timeout', detail: `no answer within ${formatSeconds(timeoutMs)}` };
    }
    return { error: 'unreachable', detail: describeNetworkError(error) };
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** A short, safe reason: the error code (ECONNREFUSED, ENOTFOUND, …) and message, no stack. */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const code = (error as { code?: string } | null)?.code ?? cause?.code;
  const message = cause?.message ?? (error as Error | null)?.message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
