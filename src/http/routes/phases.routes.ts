import { proofOf } from '../find-and-authorize.js';
import { sendDocument, sendStored } from '../reply.js';
import { IdParam } from '../schemas.js';
import { applyResource, planResource } from '../serializers/phases.serializer.js';
import type { TypedApp } from '../typed-app.js';
import { bearerToken } from '../../identity/authenticate.js';
import type { Services } from '../../services.js';
import { agentRoutes } from './agent.routes.js';

/** Plans and applies, and the plan JSON run tasks download; the agent protocol's routes beside them. */
export async function phasesRoutes(app: TypedApp, services: Services): Promise<void> {
  const phases = services.phasesService;
  const { baseUrl } = services.config;

  app.get(
    '/plans/:plan_id',
    { config: { lookup: 'plan' }, schema: { params: IdParam('plan_id'), tags: ['runs'], summary: 'Show a plan' } },
    async (request, reply) => sendDocument(reply, 200, { data: planResource(proofOf(request, 'plan').phase, baseUrl) }),
  );

  // Public to the authentication hook: a run task's access token is not an API token.
  app.get(
    '/plans/:plan_id/json-output',
    { config: { public: true }, schema: { params: IdParam('plan_id'), tags: ['runs'], summary: 'The JSON plan (API token or run task access token)' } },
    async (request, reply) => {
      return sendStored(reply, 'application/json', await phases.planJson(bearerToken(request), request.params.plan_id));
    },
  );

  app.get(
    '/applies/:apply_id',
    { config: { lookup: 'apply' }, schema: { params: IdParam('apply_id'), tags: ['runs'], summary: 'Show an apply' } },
    async (request, reply) => sendDocument(reply, 200, { data: applyResource(proofOf(request, 'apply').phase, baseUrl) }),
  );

  await agentRoutes(app, services);
}
