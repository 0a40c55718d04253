import type { FastifyInstance } from 'fastify';

/**
 * JSON:API bodies arrive as `application/vnd.api+json` (go-tfe) or `application/json`. An empty or
 * absent body reads as `{}`: a DELETE with the header set is fine, a token POST without a body too, and a
 * route that needs `data` answers 422 through its schema.
 */
export function registerJsonParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    ['application/json', 'application/vnd.api+json'],
    { parseAs: 'string' },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, {});
      try {
        done(null, JSON.parse(text));
      } catch {
        const error = new Error('request body is not valid JSON') as Error & { statusCode: number; code: string };
        error.statusCode = 422;
        error.code = 'FST_ERR_CTP_INVALID_JSON_BODY';
        done(error, undefined);
      }
    },
  );
  defaultEmptyBody(app);
}

function defaultEmptyBody(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined || request.body === null) request.body = {};
  });
}
