import { Type } from '@sinclair/typebox';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, resourceBody } from '../schemas.js';
import { policySetParameterResource } from '../serializers/policy-set-parameters.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

const attributes = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 512 })),
  value: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
  category: Type.Optional(Type.String({ maxLength: 100 })),
  sensitive: Type.Optional(Type.Boolean()),
});
const CreateBody = resourceBody('vars', attributes);
const UpdateBody = resourceBody('vars', attributes, { attributesRequired: false });
const SetParams = IdParam('policy_set_id');
const ParameterParams = Type.Object({ policy_set_id: Type.String({ maxLength: 255 }), parameter_id: Type.String({ maxLength: 255 }) });

/** HCP's policy set parameters (type `vars`): kept for Sentinel sets, never used (Teamstage runs no Sentinel). */
export async function policySetParametersRoutes(app: TypedApp, services: Services): Promise<void> {
  const { policySetParametersService: parameters, config } = services;

  app.get(
    '/policy-sets/:policy_set_id/parameters',
    { config: { lookup: 'policy-set' }, schema: { params: SetParams, querystring: JsonApiQuery, tags: ['policies'], summary: 'List the parameters of a policy set' } },
    async (request, reply) => {
      const result = await parameters.list(proofOf(request, 'policy-set'), parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, policySetParameterResource));
    },
  );

  app.post(
    '/policy-sets/:policy_set_id/parameters',
    { config: { lookup: 'policy-set' }, schema: { params: SetParams, body: CreateBody, tags: ['policies'], summary: 'Create a policy set parameter (category policy-set)' } },
    async (request, reply) =>
      sendDocument(reply, 201, { data: policySetParameterResource(await parameters.create(proofOf(request, 'policy-set'), request.body.data.attributes)) }),
  );

  app.get(
    '/policy-sets/:policy_set_id/parameters/:parameter_id',
    { config: { lookup: 'policy-set' }, schema: { params: ParameterParams, tags: ['policies'], summary: 'Show a policy set parameter' } },
    async (request, reply) => {
      const parameter = await parameters.find(proofOf(request, 'policy-set'), request.params.parameter_id);
      return sendDocument(reply, 200, { data: policySetParameterResource(parameter) });
    },
  );

  app.patch(
    '/policy-sets/:policy_set_id/parameters/:parameter_id',
    { config: { lookup: 'policy-set' }, schema: { params: ParameterParams, body: UpdateBody, tags: ['policies'], summary: 'Update a policy set parameter' } },
    async (request, reply) => {
      const found = proofOf(request, 'policy-set');
      const parameter = await parameters.find(found, request.params.parameter_id);
      return sendDocument(reply, 200, { data: policySetParameterResource(await parameters.update(found, parameter, request.body.data.attributes ?? {})) });
    },
  );

  app.delete(
    '/policy-sets/:policy_set_id/parameters/:parameter_id',
    { config: { lookup: 'policy-set' }, schema: { params: ParameterParams, tags: ['policies'], summary: 'Delete a policy set parameter' } },
    async (request, reply) => {
      const found = proofOf(request, 'policy-set');
      await parameters.delete(found, await parameters.find(found, request.params.parameter_id));
      return sendNoContent(reply);
    },
  );
}
