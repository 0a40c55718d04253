import type { FastifyInstance } from 'fastify';
import { Errors } from '../core/errors.js';

/** The deepest nesting of arrays and objects an API body may have (JSON:API documents use under 10). */
export const MAX_BODY_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over the characters, brackets
 * inside strings skipped. Cheap beside JSON.parse, and it says nothing of validity (JSON.parse does).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

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
      // JSON.parse of deeply nested arrays is slow (1 MiB of them: about 0.2 s of the event loop), and no
      // API document nests deeper than a few levels: such a body is refused before it is parsed.
      if (nestsDeeperThan(text, MAX_BODY_DEPTH)) return done(Errors.jsonTooDeep(MAX_BODY_DEPTH), undefined);
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
