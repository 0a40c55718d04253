import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../http/caller.js';
import { sendDocument } from '../http/reply.js';
import { IdParam, resourceBody } from '../http/schemas.js';
import { bearerToken } from '../identity/authenticate.js';
import type { Services } from '../services.js';
import type { ConfigurationVersionInput } from './configuration-versions.service.js';

export const UPLOAD_BODY_LIMIT = 100 * 1024 * 1024;

const CreateBody = resourceBody(
  'configuration-versions',
  Type.Object({ 'auto-queue-runs': Type.Optional(Type.Boolean()), speculative: Type.Optional(Type.Boolean()) }),
  { attributesRequired: false },
);
const VersionParams = IdParam('configuration_version_id');

/** Configuration versions (CONTRACT 7): create, show, upload through the unguessable URL, download. */
export async function configurationVersionsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const versions = services.configurationVersionsService;

  app.post<{ Params: { workspace_id: string }; Body: { data: { attributes?: ConfigurationVersionInput } } }>(
    '/workspaces/:workspace_id/configuration-versions',
    { schema: { params: IdParam('workspace_id'), body: CreateBody, tags: ['configuration-versions'], summary: 'Create a configuration version' } },
    async (request, reply) => {
      const data = await versions.create(callerOf(request), request.params.workspace_id, request.body.data.attributes ?? {});
      return sendDocument(reply, 201, { data });
    },
  );

  app.get<{ Params: { configuration_version_id: string } }>(
    '/configuration-versions/:configuration_version_id',
    { schema: { params: VersionParams, tags: ['configuration-versions'], summary: 'Show a configuration version' } },
    async (request, reply) => sendDocument(reply, 200, { data: await versions.show(callerOf(request), request.params.configuration_version_id) }),
  );

  // Public to the authentication hook: a run task's access token is not an API token (CONTRACT 9).
  app.get<{ Params: { configuration_version_id: string } }>(
    '/configuration-versions/:configuration_version_id/download',
    {
      config: { public: true },
      schema: { params: VersionParams, tags: ['configuration-versions'], summary: 'Download the configuration (API token or run task access token)' },
    },
    async (request, reply) => {
      const archive = await versions.download(bearerToken(request), request.params.configuration_version_id);
      return reply.code(200).type('application/octet-stream').send(archive);
    },
  );

  // The upload takes any content type as raw bytes (go-tfe sends application/octet-stream), up to 100 MiB,
  // in its own scope so the JSON parsers of the API do not apply. Logged at warn only: its URL is a secret.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: UPLOAD_BODY_LIMIT }, (_request, body, done) => done(null, body));
    scope.put<{ Params: { upload_token: string } }>(
      '/configuration-versions/uploads/:upload_token',
      {
        config: { public: true },
        bodyLimit: UPLOAD_BODY_LIMIT,
        logLevel: 'warn',
        schema: { params: Type.Object({ upload_token: Type.String({ maxLength: 255 }) }), hide: true },
      },
      async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        await versions.upload(request.params.upload_token, body);
        return reply.code(200).send();
      },
    );
  });
}
