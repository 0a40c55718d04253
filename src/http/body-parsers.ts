import type { FastifyInstance } from 'fastify';

/**
 * JSON:API bodies arrive as `application/vnd.api+json` (go-tfe) or `application/json`. An empty or
 * absent body reads as `{}`: a DELETE with the header set is fine, a token POST without a body too, and a
 * route that needs `data` answers 422 through its schema.
 */
export function registerJsonParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  // Fastify also parses text/plain by default; no endpoint here takes it, so it is a 415 too.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    ['application/json', 'application/vnd.api+json'],
    { parseAs: 'string' },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, {});
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return done(unprocessable('request body is not valid JSON'), undefined);
      }
      // Every body here is a JSON object (a JSON:API document or a small options object). `null` must not
      // pass for "no body", and an array or a scalar is no document at all.
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        return done(unprocessable('request body must be a JSON object (a JSON:API document)'), undefined);
      }
      done(null, parsed);
    },
  );
  defaultEmptyBody(app);
}

function unprocessable(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 422, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
}

function defaultEmptyBody(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined || request.body === null) request.body = {};
  });
}
