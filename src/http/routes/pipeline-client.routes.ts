import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { Errors } from '../../core/errors.js';
import { VERSION } from '../../core/version.js';
import { pickEncoding, type ConsoleFile } from '../console/console-assets.js';

/**
 * The standalone pipeline client (`teamstage pipeline …` as one dependency-free file, scripts/bundle.mjs),
 * served by the server itself so a CI job installs the client that matches it with one request:
 *
 *   curl -fsSo teamstage-pipeline.mjs "$TEAMSTAGE_ADDRESS/pipeline/teamstage-pipeline.mjs"
 *
 * Outside /api/v2 and without authentication: the file holds no data. Cacheable, revalidated (no-cache with
 * an ETag: a new release is picked up at once, an unchanged one costs a 304).
 */
export const PIPELINE_CLIENT_PATH = '/pipeline/teamstage-pipeline.mjs';
/** What the client sends with every request; the server refuses any other version than its own (400). */
export const PIPELINE_VERSION_HEADER = 'x-teamstage-pipeline-version';

/** dist/bundle/teamstage-pipeline.mjs of this installation, found like the console (console-assets.ts). */
export function defaultPipelineClientFile(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'bundle', 'teamstage-pipeline.mjs');
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Read once at start (about 150 kB; gzip made here once), or null when the installation was never built. */
function loadClient(file: string | null): ConsoleFile | null {
  if (!file || !fs.existsSync(file)) return null;
  const identity = fs.readFileSync(file);
  return {
    type: 'text/javascript; charset=utf-8',
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    gzip: gzipSync(identity),
  };
}

export async function pipelineClientRoutes(app: FastifyInstance, options: { file: string | null }): Promise<void> {
  const client = loadClient(options.file);
  app.get(
    PIPELINE_CLIENT_PATH,
    {
      schema: {
        tags: ['pipeline'],
        summary: 'The standalone pipeline client (teamstage pipeline …) for node 20+, matching this server',
        description:
          'One dependency-free JavaScript file: `curl -fsSo teamstage-pipeline.mjs "$TEAMSTAGE_ADDRESS/pipeline/teamstage-pipeline.mjs"`, ' +
          'then `node teamstage-pipeline.mjs <command>`. No token needed; no-cache with an ETag (304); gzip when accepted. ' +
          'The client sends X-Teamstage-Pipeline-Version with every request; another version than the server\'s is answered 400.',
        security: [],
      },
    },
    async (request, reply) => {
    if (!client) throw Errors.pipelineClientNotBuilt();
    reply.headers({ 'cache-control': 'no-cache', etag: client.etag, vary: 'accept-encoding', 'x-content-type-options': 'nosniff', 'x-teamstage-version': VERSION });
    if (request.headers['if-none-match'] === client.etag) return reply.code(304).send();
    const { body, encoding } = pickEncoding(client, request.headers['accept-encoding']);
    if (encoding) reply.header('content-encoding', encoding);
    return reply.code(200).type(client.type).send(body);
    },
  );
}

/**
 * A pipeline client of another version may speak the protocol differently (an exit code, a report field):
 * it is refused at its first request with a 400 that says where the matching one is. Requests without the
 * header (every other client) are untouched.
 */
export function refuseOtherPipelineClientVersions(app: FastifyInstance, baseUrl: string): void {
  const clientUrl = `${baseUrl.replace(/\/+$/, '')}${PIPELINE_CLIENT_PATH}`;
  app.addHook('onRequest', async (request) => {
    const version = request.headers[PIPELINE_VERSION_HEADER];
    if (version !== undefined && version !== VERSION) throw Errors.pipelineClientVersionMismatch(String(version).slice(0, 40), VERSION, clientUrl);
  });
}
