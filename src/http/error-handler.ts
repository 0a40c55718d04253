import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeStorageProblem, storageFailureOf, type StorageFailure } from '../db/storage-failures.js';
import { limitUnreadBodyAfterRefusal } from './credentials-before-body.js';
import { ApiError, Errors } from '../core/errors.js';
import { errorObjectOf, type ErrorObject } from './error-document.js';

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
    return errorObjectOf(Errors.schemaViolation(detail, source));
  });
  return objects.length > 0 ? objects : [errorObjectOf(Errors.schemaViolation(error.message, { pointer: '/data' }))];
}

export function sendErrors(reply: FastifyReply, status: number, errors: ErrorObject[]): FastifyReply {
  return reply.code(status).type('application/vnd.api+json').send({ errors });
}

/** Renders a catalogue error, with its headers. */
function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.headers(error.headers);
  return sendErrors(reply, error.status, [errorObjectOf(error)]);
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
    if (error instanceof ApiError) return sendError(reply, error);
    if (error.validation) return sendErrors(reply, 422, validationErrors(error));
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, Errors.bodyNotJson(error.message || undefined));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, Errors.bodyTooLarge());
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, Errors.unsupportedMediaType());
    }
    const storage = storageFailureOf(error);
    if (storage) {
      options.onStorageFailure?.(storage);
      request.log.warn({ code: storage.code, problem: storage.problem, err: error }, 'the database refused a request');
      return sendError(reply, Errors.storageRefused(describeStorageProblem(storage.problem)));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendError(reply, Errors.refusedBeforeRouting(status, error.message));
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, Errors.internal());
  });

  app.setNotFoundHandler((request, reply) => sendError(reply, Errors.noRoute(request.method, request.url.split('?')[0]!)));
}
