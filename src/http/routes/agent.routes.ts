import { Type } from '@sinclair/typebox';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../caller.js';
import { sendDocument } from '../reply.js';
import { IdParam } from '../schemas.js';
import { applyResource, planResource } from '../serializers/phases.serializer.js';
import type { TypedApp } from '../typed-app.js';
import { Errors } from '../../core/errors.js';
import { parseAgentReport } from '../../runs/agent-report.js';
import type { PhaseKind } from '../../runs/agent-phases.service.js';
import type { PhaseRow } from '../../runs/runs.repository.js';
import type { Services } from '../../services.js';

/** `{"status":"finished"}` or `{"status":"errored","message":"…"}`; the values are checked by parseAgentReport. */
const ReportBody = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 100 })),
  message: Type.Optional(Type.Union([Type.String({ maxLength: 20_000 }), Type.Null()])),
});

const PATHS: Record<PhaseKind, { collection: string; param: 'plan_id' | 'apply_id' }> = {
  plan: { collection: 'plans', param: 'plan_id' },
  apply: { collection: 'applies', param: 'apply_id' },
};

/**
 * Reads a request body into memory, up to `limit` bytes: a body announced or found to be larger is refused
 * (422, as issue 16 asks of an oversize upload) without reading the rest, so nothing is stored. The
 * uploads here are parsed whole (the plan JSON is checked and counted), so they are read whole.
 */
async function readLimited(payload: IncomingMessage, limit: number, declaredLength: string | undefined, what: string): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > limit) throw Errors.uploadTooLarge(what, limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += (chunk as Buffer).length;
    if (size > limit) throw Errors.uploadTooLarge(what, limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** The body a route's parser read; a PUT without one reaches no parser and is empty. */
function bodyOf(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

/**
 * The agent protocol (docs/agent-protocol.md; src/runs/agent-phases.service.ts): a pipeline claims a
 * plan or apply, uploads the plan JSON and the log, and reports the phase; readers of the run get the logs.
 */
export async function agentRoutes(app: TypedApp, services: Services): Promise<void> {
  const agent = services.agentPhasesService;
  const { baseUrl } = services.config;
  const document = (kind: PhaseKind, row: PhaseRow) => ({ data: kind === 'plan' ? planResource(row, baseUrl) : applyResource(row, baseUrl) });

  for (const kind of ['plan', 'apply'] as const) {
    const { collection, param } = PATHS[kind];
    const Params = IdParam(param);
    const idOf = (request: FastifyRequest) => (request.params as Record<string, string>)[param]!;

    app.post(
      `/${collection}/:${param}/actions/claim`,
      { schema: { params: Params, tags: ['agent'], summary: `Claim the ${kind} (agent execution mode)` } },
      async (request, reply) => sendDocument(reply, 200, document(kind, await agent.claim(callerOf(request), kind, idOf(request)))),
    );

    app.post(
      `/${collection}/:${param}/actions/report`,
      { schema: { params: Params, body: ReportBody, tags: ['agent'], summary: `Report the claimed ${kind} finished or errored` } },
      async (request, reply) => {
        const report = parseAgentReport(request.body as { status?: unknown; message?: unknown });
        return sendDocument(reply, 200, document(kind, await agent.report(callerOf(request), kind, idOf(request), report)));
      },
    );

    app.get(
      `/${collection}/:${param}/log`,
      { schema: { params: Params, tags: ['agent'], summary: `The ${kind}'s log as the pipeline uploaded it (text)` } },
      async (request, reply) => reply.code(200).type('text/plain').send(await agent.readLog(callerOf(request), kind, idOf(request))),
    );
  }

  // The uploads take raw bytes of any content type, in their own scope so the API's JSON parsers do not
  // apply. The caller's right to drive the phase is checked before a byte of the body is read.
  const uploads: Array<{ kind: PhaseKind; path: string; what: string; limit: number; store: (request: FastifyRequest, id: string, body: Buffer) => Promise<PhaseRow> }> = [
    {
      kind: 'plan',
      path: '/plans/:plan_id/json-output',
      what: 'plan JSON',
      limit: agent.limits.planJsonMaxBytes,
      store: (request, id, body) => agent.uploadPlanJson(callerOf(request), id, body),
    },
    { kind: 'plan', path: '/plans/:plan_id/log', what: 'log', limit: agent.limits.logMaxBytes, store: (request, id, body) => agent.uploadLog(callerOf(request), 'plan', id, body) },
    { kind: 'apply', path: '/applies/:apply_id/log', what: 'log', limit: agent.limits.logMaxBytes, store: (request, id, body) => agent.uploadLog(callerOf(request), 'apply', id, body) },
  ];
  for (const upload of uploads) {
    const { param } = PATHS[upload.kind];
    await app.register(async (scope: TypedApp) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) =>
        readLimited(payload, upload.limit, request.headers['content-length'], upload.what),
      );
      scope.put(
        upload.path,
        {
          schema: { params: IdParam(param), tags: ['agent'], summary: `Upload the ${upload.kind}'s ${upload.what} (agent execution mode)` },
          onRequest: async (request) => {
            await agent.authorize(callerOf(request), upload.kind, (request.params as Record<string, string>)[param]!);
          },
        },
        async (request, reply) => {
          const id = (request.params as Record<string, string>)[param]!;
          return sendDocument(reply, 200, document(upload.kind, await upload.store(request, id, bodyOf(request))));
        },
      );
    });
  }
}
