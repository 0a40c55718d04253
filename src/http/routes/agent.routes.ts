import { Type } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { proofOf } from '../find-and-authorize.js';
import { sendDocument, sendStored } from '../reply.js';
import { spoolBody } from '../spooled-body.js';
import { IdParam } from '../schemas.js';
import { applyResource, planResource } from '../serializers/phases.serializer.js';
import type { TypedApp } from '../typed-app.js';
import { Errors } from '../../core/errors.js';
import { parseAgentReport } from '../../runs/agent-report.js';
import type { PhaseKind } from '../../runs/phase-lookup.js';
import type { UploadedFile } from '../../runs/agent-phases.service.js';
import type { PhaseRow } from '../../runs/runs.repository.js';
import type { DrivablePhase } from '../../runs/phase-lookup.js';
import type { Services } from '../../services.js';

/** `{"status":"finished"}` or `{"status":"errored","message":"…"}`; the values are checked by parseAgentReport. */
const ReportBody = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 100 })),
  message: Type.Optional(Type.Union([Type.String({ maxLength: 20_000 }), Type.Null()])),
  // A finished apply's counts (optional; else read from the apply log's "Apply complete!" line).
  'resource-additions': Type.Optional(Type.Unknown()),
  'resource-changes': Type.Optional(Type.Unknown()),
  'resource-destructions': Type.Optional(Type.Unknown()),
  'resource-imports': Type.Optional(Type.Unknown()),
});

/** Where each phase is in the URL, and its lookups: `read` for readers of the run, `drive` for its pipeline. */
const PATHS = {
  plan: { collection: 'plans', param: 'plan_id', read: 'plan', drive: 'plan-execution' },
  apply: { collection: 'applies', param: 'apply_id', read: 'apply', drive: 'apply-execution' },
} as const satisfies Record<PhaseKind, { collection: string; param: string; read: string; drive: string }>;

/** A PUT without a body (Fastify calls no parser for it): an empty upload. */
const EMPTY_UPLOAD: UploadedFile = { size: 0, path: '/dev/null', read: async function* () {} };

/**
 * The agent protocol (docs/agent-protocol.md; src/runs/agent-phases.service.ts): a pipeline claims a
 * plan or apply, uploads the plan JSON and the log, and reports the phase; readers of the run get the logs.
 */
export async function agentRoutes(app: TypedApp, services: Services): Promise<void> {
  const agent = services.agentPhasesService;
  const logUrls = services.phaseLogs;
  const document = (kind: PhaseKind, row: PhaseRow) => ({ data: kind === 'plan' ? planResource(row, logUrls) : applyResource(row, logUrls) });

  for (const kind of ['plan', 'apply'] as const) {
    const { collection, param, read, drive } = PATHS[kind];
    const Params = IdParam(param);

    app.post(
      `/${collection}/:${param}/actions/claim`,
      { config: { lookup: drive }, schema: { params: Params, tags: ['agent'], summary: `Claim the ${kind} (agent execution mode)` } },
      async (request, reply) => sendDocument(reply, 200, document(kind, await agent.claim(proofOf(request, drive)))),
    );

    app.post(
      `/${collection}/:${param}/actions/report`,
      { config: { lookup: drive }, schema: { params: Params, body: ReportBody, tags: ['agent'], summary: `Report the claimed ${kind} finished or errored` } },
      async (request, reply) => {
        const report = parseAgentReport(request.body as Record<string, unknown>);
        return sendDocument(reply, 200, document(kind, await agent.report(proofOf(request, drive), report)));
      },
    );

    app.get(
      `/${collection}/:${param}/log`,
      { config: { lookup: read }, schema: { params: Params, tags: ['agent'], summary: `The ${kind}'s log as the pipeline uploaded it (text)` } },
      async (request, reply) => sendStored(reply, 'text/plain', await agent.readLog(proofOf(request, read))),
    );
  }

  // The uploads take raw bytes of any content type, in their own scope so the API's JSON parsers do not
  // apply. The caller's right to drive the phase is checked before a byte of the body is read (its lookup);
  // the body then goes to a temporary file as it arrives (never into memory; over the limit: 422 and the
  // file is gone), and from there into the database in pieces.
  const uploads: Array<{ kind: PhaseKind; path: string; what: string; limit: number; store: (found: DrivablePhase, body: UploadedFile) => Promise<PhaseRow> }> = [
    {
      kind: 'plan',
      path: '/plans/:plan_id/json-output',
      what: 'plan JSON',
      limit: agent.limits.planJsonMaxBytes,
      store: (found, body) => agent.uploadPlanJson(found, body),
    },
    { kind: 'plan', path: '/plans/:plan_id/log', what: 'log', limit: agent.limits.logMaxBytes, store: (found, body) => agent.uploadLog(found, body) },
    { kind: 'apply', path: '/applies/:apply_id/log', what: 'log', limit: agent.limits.logMaxBytes, store: (found, body) => agent.uploadLog(found, body) },
  ];
  for (const upload of uploads) {
    const { param, drive } = PATHS[upload.kind];
    await app.register(async (scope: TypedApp) => {
      scope.decorateRequest('spooledUpload', undefined);
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) => {
        request.spooledUpload = await spoolBody(payload, upload.limit, request.headers['content-length'], {
          tooLarge: (limit) => Errors.uploadTooLarge(upload.what, limit),
          idleSeconds: services.config.http.receiveIdleTimeoutSeconds,
        });
        return request.spooledUpload;
      });
      // However the request ends (answered, refused after the body was read, or abandoned), the file goes.
      const disposeSpooled = async (request: FastifyRequest) => {
        await request.spooledUpload?.dispose();
      };
      scope.addHook('onResponse', disposeSpooled);
      scope.addHook('onRequestAbort', disposeSpooled);
      scope.put(
        upload.path,
        { config: { lookup: drive }, schema: { params: IdParam(param), tags: ['agent'], summary: `Upload the ${upload.kind}'s ${upload.what} (agent execution mode)` } },
        async (request, reply) => {
          try {
            return sendDocument(reply, 200, document(upload.kind, await upload.store(proofOf(request, drive), request.spooledUpload ?? EMPTY_UPLOAD)));
          } finally {
            await request.spooledUpload?.dispose();
          }
        },
      );
    });
  }
}
