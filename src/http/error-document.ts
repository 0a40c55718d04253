import type { ApiError, ErrorSource } from '../core/errors.js';

/** The title of each status is fixed, so clients can match on it. */
export const ERROR_TITLES: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  408: 'request timeout',
  409: 'conflict',
  413: 'payload too large',
  414: 'uri too long',
  415: 'unsupported media type',
  417: 'expectation failed',
  422: 'invalid attribute',
  429: 'too many requests',
  431: 'request header fields too large',
  500: 'internal server error',
  503: 'service unavailable',
};

/** One member of a JSON:API `errors` array. */
export interface ErrorObject {
  status: string;
  title: string;
  detail?: string;
  source?: ErrorSource;
}

export function errorObjectOf(error: ApiError): ErrorObject {
  const object: ErrorObject = { status: String(error.status), title: ERROR_TITLES[error.status] ?? 'error', detail: error.message };
  if (error.source) object.source = error.source;
  return object;
}
