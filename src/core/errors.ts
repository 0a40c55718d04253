/**
 * The error catalogue. Services throw these; the one error handler (error-handler.ts) renders them as
 * JSON:API error documents. Titles are fixed per status (CONTRACT 2) so clients can match on them.
 */
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

export interface ErrorObject {
  status: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly source?: ErrorObject['source'],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toErrorObject(): ErrorObject {
    const object: ErrorObject = { status: String(this.status), title: ERROR_TITLES[this.status] ?? 'error', detail: this.message };
    if (this.source) object.source = this.source;
    return object;
  }
}

export class BadRequest extends ApiError {
  constructor(detail: string, parameter?: string) {
    super(400, detail, parameter ? { parameter } : undefined);
  }
}

export class Unauthorized extends ApiError {
  constructor(detail = 'missing, invalid or expired token') {
    super(401, detail);
  }
}

export class Forbidden extends ApiError {
  constructor(detail = 'you are not allowed to do this') {
    super(403, detail);
  }
}

/** Also what "you may not see this" becomes, so hidden resources are indistinguishable from missing ones. */
export class NotFound extends ApiError {
  constructor(detail = 'resource not found') {
    super(404, detail);
  }
}

export class Conflict extends ApiError {
  constructor(detail: string) {
    super(409, detail);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(detail = 'request body is larger than allowed') {
    super(413, detail);
  }
}

export class InvalidAttribute extends ApiError {
  constructor(pointer: string, detail: string) {
    super(422, detail, { pointer });
  }
}

/** A 422 about the request as a whole (a query parameter, an unparseable body). */
export class Unprocessable extends ApiError {
  constructor(detail: string, source?: ErrorObject['source']) {
    super(422, detail, source);
  }
}
