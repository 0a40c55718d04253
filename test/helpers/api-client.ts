import type { App } from '../../src/app.js';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** Requests through app.inject (the full HTTP stack without a socket), authenticated as `token`. */
export class ApiClient {
  constructor(
    private readonly app: App,
    readonly token?: string,
  ) {}

  as(token: string | undefined): ApiClient {
    return new ApiClient(this.app, token);
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const url = path.startsWith('/api/') || path.startsWith('/.well-known') || !path.startsWith('/') ? path : `/api/v2${path}`;
    const response = await this.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/vnd.api+json' } : {}),
        ...headers,
      },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    let parsed: unknown;
    try {
      parsed = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }
  post(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, body, headers);
  }
  patch(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('PATCH', path, body, headers);
  }
  delete(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request('DELETE', path, body, headers);
  }
}
