import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeStorageProblem, storageFailureOf, type StorageFailure } from '../db/storage-failures.js';
import { limitUnreadBodyAfterRefusal } from './credentials-before-body.js';
import { ApiError } from '../core/errors.js';
import { ERROR_TITLES, errorObjectOf, type ErrorObject } from './error-document.js';

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Ajv errors → one JSON:API error per failed check, each with a pointer into the body. */
function validationErrors(error: FastifyError): ErrorObject[] {
  const context = (error as FastifyError & { validationContext?: string }).validationContext ?? 'body';
  const list = (error.validation ?? []) as AjvLikeError[];
  const objects = list.slice(0, 10).map((item) => {
    let pointer = item.instancePath ?? '';
    if (item.keyword === 'required' && typeof item.params?.missingProperty === 'string') {
      pointer = `${pointer}/${item.params.missingProperty}`;
    }
    const where = pointer || '/';
    const detail = `${where} ${item.message ?? 'is invalid'}`;
    const source = context === 'body' ? { pointer: pointer || '/data' } : { parameter: pointer.replace(/^\//, '') || context };
    return { status: '422', title: ERROR_TITLES[422]!, detail, source } satisfies ErrorObject;
  });
  return objects.length > 0 ? objects : [{ status: '422', title: ERROR_TITLES[422]!, detail: error.message }];
}

export function sendErrors(reply: FastifyReply, status: number, errors: ErrorObject[]): FastifyReply {
  return reply.code(status).type('application/vnd.api+json').send({ errors });
}

function simpleError(status: number, detail: string): ErrorObject {
  return { status: String(status), title: ERROR_TITLES[status] ?? 'error', detail };
}

export interface ErrorHandlerOptions {
  /** Told of every request the storage refused (a full disk, a read-only database …): /readyz reports it. */
  onStorageFailure?: (failure: StorageFailure) => void;
}

/**
 * The one place errors become responses. A refusal of the storage is 503 for as long as it lasts (it is
 * nobody's mistake, and clients retry). Anything else not from the catalogue and not a client error that
 * Fastify itself classified is a bug of ours: logged, and answered 500 without internals.
 */
export function registerErrorHandler(app: FastifyInstance, options: ErrorHandlerOptions = {}): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    limitUnreadBodyAfterRefusal(request, reply);
    if (error instanceof ApiError) {
      reply.headers(error.headers);
      return sendErrors(reply, error.status, [errorObjectOf(error)]);
    }
    if (error.validation) return sendErrors(reply, 422, validationErrors(error));
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendErrors(reply, 422, [{ ...simpleError(422, error.message || 'request body is not valid JSON'), source: { pointer: '' } }]);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendErrors(reply, 413, [simpleError(413, 'request body is larger than allowed')]);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendErrors(reply, 415, [simpleError(415, 'send Content-Type: application/vnd.api+json')]);
    }
    const storage = storageFailureOf(error);
    if (storage) {
      options.onStorageFailure?.(storage);
      request.log.warn({ code: storage.code, problem: storage.problem, err: error }, 'the database refused a request');
      return sendErrors(reply, 503, [simpleError(503, `the database refused this request: ${describeStorageProblem(storage.problem)}; try again later`)]);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return sendErrors(reply, status, [simpleError(status, error.message)]);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendErrors(reply, 500, [simpleError(500, 'internal error; the server logged the cause')]);
  });

  app.setNotFoundHandler((request, reply) =>
    sendErrors(reply, 404, [simpleError(404, `no route for ${request.method} ${request.url.split('?')[0]}`)]),
  );
}
