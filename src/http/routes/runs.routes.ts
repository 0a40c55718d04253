import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { parseInclude } from '../include.js';
import { resourceDocument } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { sendDocument } from '../reply.js';
import { IdParam, resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';
import { RUN_INCLUDES, type CreateRunInput, type RunAction } from '../../runs/runs.service.js';

const relationship = (type: string) =>
  Type.Optional(Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal(type) }) }));

const CreateRunBody = resourceBody(
  'runs',
  Type.Object({
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    'plan-only': Type.Optional(Type.Boolean()),
    'auto-apply': Type.Optional(Type.Boolean()),
    'is-destroy': Type.Optional(Type.Boolean()),
  }),
  {
    attributesRequired: false,
    relationships: Type.Object({ workspace: relationship('workspaces'), 'configuration-version': relationship('configuration-versions') }),
  },
);
type CreateRunBody = {
  data: {
    attributes?: CreateRunInput['attributes'];
    relationships?: { workspace?: { data: { id: string } }; 'configuration-version'?: { data: { id: string } } };
  };
};

/** Actions take an optional plain JSON `{"comment": "…"}`; anything else in it is ignored. */
const ActionBody = Type.Object({ comment: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])) });
const RunParams = IdParam('run_id');


/** Runs (CONTRACT 7): create, show, list per workspace, apply, discard, cancel. */
export async function runsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { runsService, config } = services;

  app.post<{ Querystring: Query; Body: CreateRunBody }>(
    '/runs',
    { schema: { body: CreateRunBody, tags: ['runs'], summary: 'Create a run' } },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_INCLUDES);
      const { attributes, relationships } = request.body.data;
      const document = await runsService.create(
        callerOf(request),
        {
          attributes: attributes ?? {},
          workspaceId: relationships?.workspace?.data.id,
          configurationVersionId: relationships?.['configuration-version']?.data.id,
        },
        include,
      );
      return sendDocument(reply, 201, resourceDocument(document));
    },
  );

  app.get<{ Params: { run_id: string }; Querystring: Query }>(
    '/runs/:run_id',
    { schema: { params: RunParams, tags: ['runs'], summary: 'Show a run (include: task_stages, plan, apply, workspace, configuration_version)' } },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_INCLUDES);
      return sendDocument(reply, 200, resourceDocument(await runsService.show(callerOf(request), request.params.run_id, include)));
    },
  );

  app.get<{ Params: { workspace_id: string }; Querystring: Query }>(
    '/workspaces/:workspace_id/runs',
    { schema: { params: IdParam('workspace_id'), tags: ['runs'], summary: 'List the runs of a workspace, newest first' } },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_INCLUDES);
      const page = parsePage(request.query);
      const result = await runsService.list(callerOf(request), request.params.workspace_id, page, include);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, result));
    },
  );

  for (const action of ['apply', 'discard', 'cancel'] as const satisfies readonly RunAction[]) {
    app.post<{ Params: { run_id: string } }>(
      `/runs/:run_id/actions/${action}`,
      { schema: { params: RunParams, body: ActionBody, tags: ['runs'], summary: `${action[0]!.toUpperCase()}${action.slice(1)} a run` } },
      async (request, reply) => {
        await runsService.act(callerOf(request), request.params.run_id, action);
        // 202 with no body, as HCP Terraform answers run actions.
        return reply.code(202).send();
      },
    );
  }
}
