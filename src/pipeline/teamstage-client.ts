import { VERSION } from '../core/version.js';
import { EXIT, PipelineError, usageError } from './exit-codes.js';
import { send, type HttpAnswer } from './http-transport.js';

/** A non-2xx answer of the API, with the JSON:API error's title and detail. */
export class ApiError extends PipelineError {
  constructor(
    readonly status: number,
    readonly detail: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status}${detail ? ` ${detail}` : ''}`, EXIT.usage);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  body?: Buffer | string | object;
  contentType?: string;
  /** Send no Authorization header (the configuration upload URL is a capability of its own). */
  anonymous?: boolean;
  /**
   * Retry network errors, 5xx and 429. Only for requests whose repetition is harmless (reads, uploads
   * that replace, idempotent reports): a repeated claim or run creation could claim or create twice.
   */
  retry?: boolean;
  /** Answer these statuses instead of throwing (e.g. 409 for a claim that is not possible yet). */
  accept?: number[];
}

export interface ApiAnswer {
  status: number;
  json: any;
}

/**
 * Pauses before retrying a request the server did not answer (or answered 5xx/429): about 15 s in all,
 * enough to ride out a node restarting behind a load balancer. TEAMSTAGE_PIPELINE_RETRY_DELAYS
 * (seconds, comma-separated) changes it.
 */
export function retryDelaysMs(text: string | undefined): number[] {
  if (!text) return [500, 1000, 2000, 4000, 8000];
  const delays = text.split(',').map((part) => Number(part.trim()) * 1000);
  if (delays.some((delay) => !Number.isFinite(delay) || delay < 0)) throw usageError(`TEAMSTAGE_PIPELINE_RETRY_DELAYS must be seconds separated by commas, not "${text}"`);
  return delays;
}
const REQUEST_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The few API calls a pipeline makes, over fetch, with the token from the environment. */
export class TeamstageClient {
  readonly apiBase: string;

  constructor(
    readonly address: string,
    private readonly token: string,
    private readonly retryDelays: number[] = retryDelaysMs(undefined),
  ) {
    this.apiBase = `${address.replace(/\/+$/, '')}/api/v2`;
  }

  /** `path` is relative to /api/v2, or an absolute URL (upload URLs). */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer> {
    const url = /^https?:\/\//.test(path) ? path : `${this.apiBase}${path}`;
    // The server refuses a client of another version with a 400 that says where the matching one is.
    const headers: Record<string, string> = {
      'user-agent': `teamstage-pipeline/${VERSION}`,
      'x-teamstage-pipeline-version': VERSION,
      accept: 'application/vnd.api+json',
    };
    if (!options.anonymous) headers.authorization = `Bearer ${this.token}`;
    let body: Buffer | undefined;
    if (options.body !== undefined) {
      body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
      headers['content-type'] = options.contentType ?? 'application/vnd.api+json';
    }
    const what = `${method} ${url.replace(/\?.*$/, '')}`;
    const delays = options.retry ? this.retryDelays : [];
    for (let attempt = 0; ; attempt++) {
      let response: HttpAnswer;
      try {
        response = await send(method, url, headers, body, REQUEST_TIMEOUT_MS);
      } catch (error) {
        if (attempt < delays.length) {
          await sleep(delays[attempt]!);
          continue;
        }
        throw new PipelineError(`${what}: ${describeNetworkError(error)}`, EXIT.usage);
      }
      const text = response.text;
      const retryable = response.status >= 500 || response.status === 429;
      if (retryable && attempt < delays.length) {
        const reset = Number(response.headers['x-ratelimit-reset']);
        await sleep(response.status === 429 && reset > 0 ? Math.min(reset * 1000, 30_000) : delays[attempt]!);
        continue;
      }
      const json = parseJson(text);
      const ok = response.status >= 200 && response.status < 300;
      if (ok || options.accept?.includes(response.status)) return { status: response.status, json };
      throw new ApiError(response.status, errorDetail(json, text), what);
    }
  }

  get(path: string): Promise<ApiAnswer> {
    return this.request('GET', path, { retry: true });
  }
}

function parseJson(text: string): any {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** "conflict: plan is not claimable…" from a JSON:API error document, else the start of the body. */
function errorDetail(json: any, text: string): string {
  const error = json?.errors?.[0];
  if (error) return [error.title, error.detail].filter(Boolean).join(': ');
  return text.slice(0, 200);
}

function describeNetworkError(error: unknown): string {
  const own = error as { code?: string; message?: string };
  if (own?.code) return `${own.code}${own.message && own.message !== own.code ? ` (${own.message})` : ''}`;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  if (cause?.message) return `${(error as Error).message}: ${cause.message}`;
  return error instanceof Error ? error.message : String(error);
}
