import type { ApiErrorObject } from './jsonapi-types';

/**
 * The console's only way to the server: the public API at /api/v2 with the signed-in token, exactly what
 * any other client uses, so the console can never see more than its user may.
 */
export const API_BASE = '/api/v2';

/** A refused request: its status and the server's JSON:API errors (for showing each at its field). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiErrorObject[],
  ) {
    super(errors.map((error) => error.detail ?? error.title).filter(Boolean).join('; ') || `request failed with ${status}`);
  }

  get isNotFound(): boolean {
    return this.status === 404;
  }

  /** The errors whose source pointer is the attribute `field` (e.g. "organization-access/manage-projects"). */
  forField(field: string): ApiErrorObject[] {
    return this.errors.filter((error) => error.source?.pointer === `/data/attributes/${field}`);
  }
}

export interface ApiClient {
  /** `signal` ends a long read (a page watching runs) when the page goes. */
  get<T>(path: string, query?: Record<string, string | undefined>, options?: { signal?: AbortSignal }): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string, body?: unknown): Promise<void>;
  /** PUT of a raw text body (a policy's Rego source), not a JSON:API document. */
  putText(path: string, text: string): Promise<void>;
}

/** A client for `token`; `onUnauthorized` runs when the server says the token is no longer good. */
export function createApiClient(token: string, onUnauthorized: () => void): ApiClient {
  async function request<T>(method: string, path: string, body?: unknown, raw?: string, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/vnd.api+json' };
    if (body !== undefined) headers['content-type'] = 'application/vnd.api+json';
    if (raw !== undefined) headers['content-type'] = 'application/octet-stream';
    let response: Response;
    try {
      const sent = raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body);
      response = await fetch(`${API_BASE}${path}`, { method, headers, body: sent, credentials: 'omit', signal });
    } catch {
      throw new ApiError(0, [{ title: 'network error', detail: 'the server could not be reached; check the connection and try again' }]);
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    const parsed = text ? safeJson(text) : undefined;
    if (!response.ok) {
      if (response.status === 401) onUnauthorized();
      const errors = (parsed as { errors?: ApiErrorObject[] } | undefined)?.errors;
      throw new ApiError(response.status, Array.isArray(errors) ? errors : [{ status: String(response.status), title: response.statusText }]);
    }
    return parsed as T;
  }

  return {
    get: (path, query, options) => request('GET', path + queryString(query), undefined, undefined, options?.signal),
    post: (path, body) => request('POST', path, body),
    patch: (path, body) => request('PATCH', path, body),
    delete: (path, body) => request('DELETE', path, body),
    putText: (path, text) => request('PUT', path, undefined, text),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function queryString(query?: Record<string, string | undefined>): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Path segments are user data (team names, organization names): always encoded. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
