import { Type } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { proofOf } from '../find-and-authorize.js';
import { sendDocument } from '../reply.js';
import { IdParam } from '../schemas.js';
import { spoolBody } from '../spooled-body.js';
import { policySetVersionResource } from '../serializers/policy-set-versions.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

/** HCP's policy set versions: create (with its upload link), show, and the upload of the policies' tar.gz. */
export async function policySetVersionsRoutes(app: TypedApp, services: Services): Promise<void> {
  const { policySetVersionsService: versions, config } = services;

  // No body: go-tfe POSTs none (HCP takes none).
  app.post(
    '/policy-sets/:policy_set_id/versions',
    { config: { lookup: 'policy-set' }, schema: { params: IdParam('policy_set_id'), tags: ['policies'], summary: 'Create a policy set version (upload its tar.gz to links.upload next)' } },
    async (request, reply) => {
      const { row, uploadUrl } = await versions.create(proofOf(request, 'policy-set'));
      return sendDocument(reply, 201, { data: policySetVersionResource(row, uploadUrl) });
    },
  );

  app.get(
    '/policy-set-versions/:policy_set_version_id',
    { config: { lookup: 'policy-set-version' }, schema: { params: IdParam('policy_set_version_id'), tags: ['policies'], summary: 'Show a policy set version (pending, ready or errored)' } },
    async (request, reply) => {
      const { row, uploadUrl } = proofOf(request, 'policy-set-version');
      return sendDocument(reply, 200, { data: policySetVersionResource(row, uploadUrl) });
    },
  );

  // As the configuration upload: raw bytes of any content type, the URL's token checked before a byte is read,
  // the body spooled to a temporary file (never memory) within the archive bound, then read as a stream.
  // Logged at warn only: its URL is a secret.
  await app.register(async (scope: TypedApp) => {
    scope.decorateRequest('spooledUpload', undefined);
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) => {
      request.spooledUpload = await spoolBody(payload, versions.archiveLimits.maxInflatedBytes, request.headers['content-length'], { idleSeconds: config.http.receiveIdleTimeoutSeconds });
      return request.spooledUpload;
    });
    scope.put(
      '/policy-set-versions/uploads/:upload_token',
      {
        config: { public: true, lookup: 'policy-set-version-upload' },
        logLevel: 'warn',
        schema: { params: Type.Object({ upload_token: Type.String({ maxLength: 255 }) }), hide: true },
      },
      async (request, reply) => {
        const body = request.spooledUpload;
        try {
          await versions.upload(proofOf(request, 'policy-set-version-upload'), body ?? EMPTY_UPLOAD);
        } finally {
          await body?.dispose();
        }
        return reply.code(200).send();
      },
    );
  });
}

/** A PUT without a body (Fastify calls no parser for it): read as an empty upload, which errors the version. */
const EMPTY_UPLOAD = { read: async function* (): AsyncGenerator<Buffer> {} };
