/**
 * The kinds of error the catalogue (errors.ts) builds, one per status. Only errors.ts imports this file (the
 * error-catalogue test keeps it so): everything else throws a named member of `Errors`.
 */

/** Where in the request the problem is: a JSON pointer into the body, or a query parameter. */
export interface ErrorSource {
  pointer?: string;
  parameter?: string;
}

/**
 * An error the server means to give: its status and detail as plain data; http/error-handler.ts renders it.
 * Only the members of `Errors` (errors.ts) make one (its constructor is protected and its kinds are imported by
 * the catalogue alone), so every error the API answers is named in errors.ts, with its status and the
 * template of its detail.
 */
export class ApiError extends Error {
  protected constructor(
    readonly status: number,
    detail: string,
    readonly source?: ErrorSource,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
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

/** Constructed only through `Errors` (errors.ts): a 403 is the access verdict's to give, with a named reason. */
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

/** Any other status (429, 503, 415, 500), with its headers. */
export class StatusError extends ApiError {
  constructor(status: number, detail: string, headers: Record<string, string> = {}) {
    super(status, detail, undefined, headers);
  }
}

/** A 422 about the request as a whole (a query parameter, an unparseable body). */
export class Unprocessable extends ApiError {
  constructor(detail: string, source?: ErrorSource) {
    super(422, detail, source);
  }
}
