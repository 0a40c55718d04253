import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../core/errors.js';
import { defaultConsoleDir, loadConsoleAssets, pickEncoding, type ConsoleFile } from '../console/console-assets.js';

/**
 * The web console at /app (src/web, built into dist/web): one HTML page and its content-hashed assets.
 * No authentication here: the files hold no data; the console signs in to /api/v2 like any client.
 * The console routes by history (src/web/router/history-router.ts): every /app/* path other than an asset
 * is the same HTML page, which reads the path itself, so HCP's links (`run_app_url`,
 * `/app/<org>/workspaces/<ws>/runs/<run>`) open the page they name. `/` leads to the console.
 */
export const CONSOLE_PREFIX = '/app';

/** The HTML may load only its own files and talk only to this server: no inline script, nothing from outside. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export async function consoleRoutes(app: FastifyInstance, options: { dir?: string | null } = {}): Promise<void> {
  const built = loadConsoleAssets(options.dir === undefined ? defaultConsoleDir() : options.dir);

  const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
    // A checkout run from its sources before any build: say so instead of a bare 404.
    if (!built) throw Errors.consoleNotBuilt();
    // Revalidated on every load (no-cache + ETag), so a new release is picked up at once; the assets it
    // names change their file names when their content changes.
    return send(request, reply, built.index, {
      'cache-control': 'no-cache',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
  };
  app.get(CONSOLE_PREFIX, { schema: { hide: true } }, sendIndex);
  app.get(`${CONSOLE_PREFIX}/`, { schema: { hide: true } }, sendIndex);
  app.get(`${CONSOLE_PREFIX}/*`, { schema: { hide: true } }, sendIndex);
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 302));

  app.get<{ Params: { file: string } }>(`${CONSOLE_PREFIX}/assets/:file`, { schema: { hide: true } }, async (request, reply) => {
    const file = built?.assets.get(request.params.file);
    // Asset names have a dot (main-HASH.js); organization names never do, so /app/assets/<name> without one
    // is the console page of an organization called "assets".
    if (!file && !request.params.file.includes('.')) return sendIndex(request, reply);
    if (!file) throw Errors.noRoute(request.method, request.url.split('?')[0]!);
    return send(request, reply, file, { 'cache-control': 'public, max-age=31536000, immutable' });
  });
}

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, headers: Record<string, string>) {
  reply.headers({ ...headers, etag: file.etag, vary: 'accept-encoding', 'x-content-type-options': 'nosniff' });
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const { body, encoding } = pickEncoding(file, request.headers['accept-encoding']);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.code(200).type(file.type).send(body);
}
