import { Type } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { parseInclude } from '../include.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendStored } from '../reply.js';
import { IdParam, JsonApiQuery, resourceBody } from '../schemas.js';
import { spoolBody } from '../spooled-body.js';
import { bearerToken } from '../../identity/authenticate.js';
import type { Services } from '../../services.js';
import { configurationVersionResource } from '../serializers/configuration-versions.serializer.js';
import type { TypedApp } from '../typed-app.js';

export const UPLOAD_BODY_LIMIT = 100 * 1024 * 1024;

const CreateBody = resourceBody(
  'configuration-versions',
  Type.Object({ 'auto-queue-runs': Type.Optional(Type.Boolean()), speculative: Type.Optional(Type.Boolean()), provisional: Type.Optional(Type.Boolean()) }),
  { attributesRequired: false },
);
const VersionParams = IdParam('configuration_version_id');

/** Configuration versions: create, list, show, upload through the unguessable URL, download. */
export async function configurationVersionsRoutes(app: TypedApp, services: Services): Promise<void> {
  const versions = services.configurationVersionsService;

  app.post(
    '/workspaces/:workspace_id/configuration-versions',
    {
      config: { lookup: 'workspace' },
      schema: { params: IdParam('workspace_id'), body: CreateBody, tags: ['configuration-versions'], summary: 'Create a configuration version' },
    },
    async (request, reply) => {
      const { row, uploadUrl } = await versions.create(callerOf(request), proofOf(request, 'workspace'), request.body.data.attributes ?? {});
      return sendDocument(reply, 201, { data: configurationVersionResource(row, uploadUrl) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/configuration-versions',
    {
      config: { includes: [], lookup: 'workspace' },
      schema: { params: IdParam('workspace_id'), querystring: JsonApiQuery, tags: ['configuration-versions'], summary: "List a workspace's configuration versions, newest first" },
    },
    async (request, reply) => {
      // No related resources are offered (HCP's ingress-attributes and run are not served): any include is a 400.
      parseInclude(request.query, []);
      const page = await versions.list(proofOf(request, 'workspace'), parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, page, (row) => configurationVersionResource(row)));
    },
  );

  app.get(
    '/configuration-versions/:configuration_version_id',
    { config: { lookup: 'configuration-version' }, schema: { params: VersionParams, tags: ['configuration-versions'], summary: 'Show a configuration version' } },
    async (request, reply) => sendDocument(reply, 200, { data: configurationVersionResource(proofOf(request, 'configuration-version')) }),
  );

  // Public to the authentication hook: a run task's access token is not an API token.
  app.post(
    '/configuration-versions/:configuration_version_id/actions/archive',
    { config: { lookup: 'configuration-version' }, schema: { params: VersionParams, tags: ['configuration-versions'], summary: 'Archive a configuration version (its stored archive is freed)' } },
    async (request, reply) => {
      await versions.archive(callerOf(request), proofOf(request, 'configuration-version'));
      // 202 with no body, as HCP answers.
      return reply.code(202).send();
    },
  );

  app.get(
    '/configuration-versions/:configuration_version_id/download',
    {
      config: { public: true },
      schema: { params: VersionParams, tags: ['configuration-versions'], summary: 'Download the configuration (API token or run task access token)' },
    },
    async (request, reply) => {
      const archive = await versions.download(bearerToken(request), request.params.configuration_version_id);
      return sendStored(reply, 'application/octet-stream', { size: archive.size, pieces: archive.chunks });
    },
  );

  // The upload takes any content type as raw bytes (go-tfe sends application/octet-stream), up to 100 MiB,
  // in its own scope so the JSON parsers of the API do not apply. Its token is checked before a byte of the
  // body is read (its lookup); the body then goes to a temporary file, never into memory, and from there into
  // the database in pieces. Logged at warn only: its URL is a secret.
  await app.register(async (scope: TypedApp) => {
    scope.decorateRequest('spooledUpload', undefined);
    scope.removeAllContentTypeParsers();
    // The spooled body is kept on the request, typed, for the handler (and is also what Fastify calls the body).
    scope.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) => {
      request.spooledUpload = await spoolBody(payload, UPLOAD_BODY_LIMIT, request.headers['content-length'], { idleSeconds: services.config.http.receiveIdleTimeoutSeconds });
      return request.spooledUpload;
    });
    scope.put(
      '/configuration-versions/uploads/:upload_token',
      {
        config: { public: true, lookup: 'configuration-upload' },
        logLevel: 'warn',
        schema: { params: Type.Object({ upload_token: Type.String({ maxLength: 255 }) }), hide: true },
      },
      async (request, reply) => {
        const body = request.spooledUpload;
        try {
          await versions.upload(proofOf(request, 'configuration-upload'), body ?? EMPTY_UPLOAD);
        } finally {
          await body?.dispose();
        }
        return reply.code(200).send();
      },
    );
  });
}

/** A PUT without a body (Fastify calls no parser for it). */
const EMPTY_UPLOAD = { size: 0, read: (): Buffer[] => [] };
