import { Readable } from 'node:stream';
import { proofOf } from '../find-and-authorize.js';
import { sendDocument, sendStored } from '../reply.js';
import { Type } from '@sinclair/typebox';
import { Errors } from '../../core/errors.js';
import { IdParam, JsonApiQuery } from '../schemas.js';
import { applyResource, planResource } from '../serializers/phases.serializer.js';
import type { TypedApp } from '../typed-app.js';
import { bearerToken } from '../../identity/authenticate.js';
import type { Services } from '../../services.js';
import { agentRoutes } from './agent.routes.js';

/** `offset` or `limit` of a log read: absent, or a whole number of bytes (else 422). */
function byteCount(value: string | undefined, parameter: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,12}$/.test(value)) throw Errors.invalidLogRange(parameter);
  return Number(value);
}

/** Plans and applies, and the plan JSON run tasks download; the agent protocol's routes beside them. */
export async function phasesRoutes(app: TypedApp, services: Services): Promise<void> {
  const phases = { json: services.phasesService, logs: services.phaseLogs };

  app.get(
    '/plans/:plan_id',
    { config: { lookup: 'plan' }, schema: { params: IdParam('plan_id'), tags: ['runs'], summary: 'Show a plan' } },
    async (request, reply) => sendDocument(reply, 200, { data: planResource(proofOf(request, 'plan').phase, services.phaseLogs) }),
  );

  // Public to the authentication hook: a run task's access token is not an API token.
  app.get(
    '/plans/:plan_id/json-output',
    { config: { public: true }, schema: { params: IdParam('plan_id'), tags: ['runs'], summary: 'The JSON plan (API token or run task access token)' } },
    async (request, reply) => {
      return sendStored(reply, 'application/json', await phases.json.planJson(bearerToken(request), request.params.plan_id));
    },
  );

  app.get(
    '/plans/:plan_id/json-output-redacted',
    {
      config: { lookup: 'plan' },
      schema: {
        params: IdParam('plan_id'),
        tags: ['runs'],
        summary: "HCP's redacted plan: the plan's changes with sensitive values replaced by null, and provider schemas (terraform's cloud block renders it)",
      },
    },
    async (request, reply) => {
      const body = await phases.json.redactedPlanJson(proofOf(request, 'plan').phase);
      return reply.code(200).header('content-type', 'application/json').header('cache-control', 'no-store').send(body);
    },
  );

  app.get(
    '/applies/:apply_id',
    { config: { lookup: 'apply' }, schema: { params: IdParam('apply_id'), tags: ['runs'], summary: 'Show an apply' } },
    async (request, reply) => sendDocument(reply, 200, { data: applyResource(proofOf(request, 'apply').phase, services.phaseLogs) }),
  );

  // The signed log URL (runs/log-url-signature.ts): no token, as terraform and go-tfe read HCP's; the URL is the credential.
  app.get(
    '/signed-logs/:expires/:signature/:collection/:phase_id/log',
    {
      config: { public: true },
      schema: {
        params: Type.Object({
          // Plain strings: a malformed part is an unknown URL (404, as every unknown id), not a 422.
          expires: Type.String(),
          signature: Type.String(),
          collection: Type.String(),
          phase_id: Type.String(),
        }),
        querystring: JsonApiQuery,
        tags: ['runs'],
        summary: "A plan's or apply's log, through its signed log-read-url (no token; offset and limit in bytes)",
        description:
          'The `log-read-url` of a plan or apply: signed by the server and valid for TEAMSTAGE_LOG_URL_TTL seconds. The log is framed ' +
          'by STX (0x02) and, once the phase is final, ETX (0x03), as HCP serves it; `offset` and `limit` select bytes of that.',
      },
    },
    async (request, reply) => {
      const { phase_id: phaseId, expires, signature, collection } = request.params;
      if (collection !== (phaseId.startsWith('apply-') ? 'applies' : 'plans')) throw Errors.logUrlNotFound();
      const opened = await phases.logs.open(phaseId, expires, signature);
      const offset = byteCount(request.query.offset, 'offset') ?? 0;
      const limit = byteCount(request.query.limit, 'limit');
      const pieces = Readable.from(phases.logs.read(opened, offset, limit), { objectMode: true, highWaterMark: 1 });
      return reply.code(200).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send(pieces);
    },
  );

  await agentRoutes(app, services);
}
