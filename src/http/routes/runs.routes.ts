import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { parseInclude } from '../include.js';
import { resourceDocument, type Resource } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument } from '../reply.js';
import { IdParam, JsonApiQuery, resourceBody } from '../schemas.js';
import { runIncluded, runResource } from '../serializers/runs.serializer.js';
import { taskStageViewResource } from '../serializers/task-stages.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { OrganizationStanding } from '../../access/organization-standing.js';
import type { Services } from '../../services.js';
import type { RunResult } from '../../runs/run-view.js';
import { RUN_INCLUDES, type RunAction, type RunInclude } from '../../runs/runs.service.js';
import { runListWaitToken, runWaitToken, waitSeconds } from '../../runs/run-waits.js';
import { parseRunListFilter } from '../../runs/run-list-filter.js';
import { principalKey } from '../../core/principal.js';

const relationship = (type: string) =>
  Type.Optional(Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal(type) }) }));

const CreateRunBody = resourceBody(
  'runs',
  Type.Object({
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    'plan-only': Type.Optional(Type.Boolean()),
    'auto-apply': Type.Optional(Type.Boolean()),
    'is-destroy': Type.Optional(Type.Boolean()),
    // Echoed as sent (src/runs/run-options.ts).
    refresh: Type.Optional(Type.Boolean()),
    'refresh-only': Type.Optional(Type.Boolean()),
    'allow-empty-apply': Type.Optional(Type.Boolean()),
    'replace-addrs': Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 })),
    'target-addrs': Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 })),
    'save-plan': Type.Optional(Type.Boolean()),
    /** HCP: only with plan-only (422 otherwise). */
    'terraform-version': Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    variables: Type.Optional(
      Type.Array(Type.Object({ key: Type.String({ minLength: 1, maxLength: 255 }), value: Type.String({ maxLength: 100_000 }) }), { maxItems: 1000 }),
    ),
  }),
  {
    attributesRequired: false,
    relationships: Type.Object({
      workspace: relationship('workspaces'),
      // `{"data": null}` (or no relationship): the workspace's latest uploaded configuration version.
      'configuration-version': Type.Optional(
        Type.Object({ data: Type.Union([Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal('configuration-versions') }), Type.Null()]) }),
      ),
    }),
  },
);

/** Actions take an optional plain JSON `{"comment": "…"}`; anything else in it is ignored. */
const ActionBody = Type.Object({ comment: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])) });
const RunParams = IdParam('run_id');

/** Runs: create, show, list per workspace, apply, discard, cancel. */
export async function runsRoutes(app: TypedApp, services: Services): Promise<void> {
  const { runsService, runWaits, taskStagesService, config } = services;

  /** `include=task_stages`: the stages of these runs, from the task stage side, as the caller sees them. */
  const taskStagesOf = async (include: Set<RunInclude>, standing: OrganizationStanding, runIds: string[]): Promise<Resource[]> =>
    include.has('task-stages') ? (await taskStagesService.forRuns(standing, runIds)).map(taskStageViewResource) : [];

  /** A run document (also what `GET /task-stages/:id?include=run` includes). */
  const runDocument = async (result: RunResult, include: Set<RunInclude>) =>
    resourceDocument({
      data: runResource(result.run, result.standing),
      included: runIncluded(result.related, result.standing, services.phaseLogs, await taskStagesOf(include, result.standing, [result.run.row.id])),
    });

  app.post(
    '/runs',
    { config: { includes: RUN_INCLUDES }, schema: { querystring: JsonApiQuery, body: CreateRunBody, tags: ['runs'], summary: 'Create a run' } },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_INCLUDES);
      const { attributes, relationships } = request.body.data;
      const result = await runsService.create(
        callerOf(request),
        {
          attributes: attributes ?? {},
          workspaceId: relationships?.workspace?.data.id,
          configurationVersionId: relationships?.['configuration-version']?.data?.id,
        },
        include,
      );
      return sendDocument(reply, 201, await runDocument(result, include));
    },
  );

  app.get(
    '/runs/:run_id',
    {
      config: { includes: RUN_INCLUDES, lookup: 'run' },
      schema: {
        params: RunParams,
        querystring: JsonApiQuery,
        tags: ['runs'],
        summary: 'Show a run (include: task_stages, plan, apply, workspace, configuration_version, created_by, confirmed_by)',
        description:
          'Long polling (an extension): with `wait=SECONDS` the answer comes as soon as the run differs from the state named by ' +
          '`wait-token` (the `meta.wait-token` of an earlier answer; without it, the state at the time of the request): its status, ' +
          "a task stage's status or its position in the queue; or after the wait (at most TEAMSTAGE_RUN_WAIT_MAX seconds) as it is. " +
          'At most TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL waiting reads per token (429 beyond).',
      },
    },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_INCLUDES);
      const first = await runsService.show(proofOf(request, 'run'), include);
      const { wait } = request.query;
      let result = first;
      if (wait !== undefined) {
        const seconds = waitSeconds(wait, runWaits.limits);
        const caller = callerOf(request);
        // Found and authorized before anything waits (404 at once); each wake finds and authorizes the run again.
        const read = async () => runsService.show(await runsService.visibleRun(caller, request.params.run_id), include);
        const gone = new AbortController();
        reply.raw.once('close', () => gone.abort());
        result = await runWaits.until(principalKey(caller), first.run.row.workspace_id, request.query['wait-token'], seconds, read, gone.signal, first);
      }
      const document = await runDocument(result, include);
      return sendDocument(reply, 200, { ...document, meta: { 'wait-token': runWaitToken(result.run) } });
    },
  );

  app.get(
    '/workspaces/:workspace_id/runs',
    {
      config: { includes: RUN_INCLUDES, lookup: 'workspace' },
      schema: {
        params: IdParam('workspace_id'),
        querystring: JsonApiQuery,
        tags: ['runs'],
        summary: 'List the runs of a workspace, newest first',
        description:
          'HCP filters: `filter[status]`, `filter[operation]`, `filter[source]` (comma-separated, any of), `filter[status_group]` ' +
          '(`non_final`, `final`, `discardable`), `search[user]` (the creator\'s name), `search[basic]` (part of the id, message or creator\'s name). ' +
          'Runs here have no commit and no agent pool: `filter[commit]`, `search[commit]` and `filter[agent_pool_names]` match none. ' +
          'Long polling (an extension, as for one run): with `wait=SECONDS` the page comes as soon as it differs from the state named by ' +
          '`wait-token` (`meta.wait-token` of an earlier answer): a run added or gone, a status, a stage status or a queue place changed.',
      },
    },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_INCLUDES);
      const page = parsePage(request.query);
      const filter = parseRunListFilter(request.query);
      const found = proofOf(request, 'workspace');
      let result = await runsService.list(found, page, include, filter);
      const { wait } = request.query;
      if (wait !== undefined) {
        const seconds = waitSeconds(wait, runWaits.limits);
        const caller = callerOf(request);
        // Each wake finds and authorizes the workspace again, as a waiting read of one run does.
        const read = async () => runsService.list(await services.workspacesService.visible(caller, request.params.workspace_id), page, include, filter);
        const gone = new AbortController();
        reply.raw.once('close', () => gone.abort());
        result = await runWaits.untilToken(principalKey(caller), found.workspace.id, request.query['wait-token'], seconds, read, runListWaitToken, gone.signal, result);
      }
      const stages = await taskStagesOf(include, result.standing, result.items.map((run) => run.row.id));
      const included = runIncluded(result.related, result.standing, services.phaseLogs, stages);
      const document = listDocument(request, config.baseUrl, result, (run) => runResource(run, result.standing), included);
      return sendDocument(reply, 200, { ...document, meta: { ...document.meta, 'wait-token': runListWaitToken(result) } });
    },
  );

  for (const action of ['apply', 'discard', 'cancel'] as const satisfies readonly RunAction[]) {
    app.post(
      `/runs/:run_id/actions/${action}`,
      { config: { lookup: 'run' }, schema: { params: RunParams, body: ActionBody, tags: ['runs'], summary: `${action[0]!.toUpperCase()}${action.slice(1)} a run` } },
      async (request, reply) => {
        await runsService.act(proofOf(request, 'run'), action, request.body?.comment ?? null);
        // 202 with no body, as HCP Terraform answers run actions.
        return reply.code(202).send();
      },
    );
  }

  // HCP's forceful actions (src/runs/run-force-actions.ts): 202 with no body, 409 with why when not allowed now.
  const forceful = { 'force-cancel': 'Force-cancel a run (after a cancel and its cool-off)', 'force-execute': 'Force-execute a pending run (runs ahead are discarded or canceled)' };
  for (const [action, summary] of Object.entries(forceful)) {
    app.post(
      `/runs/:run_id/actions/${action}`,
      { config: { lookup: 'run' }, schema: { params: RunParams, body: ActionBody, tags: ['runs'], summary } },
      async (request, reply) => {
        const comment = request.body?.comment ?? null;
        if (action === 'force-cancel') await services.runForceActions.forceCancel(proofOf(request, 'run'), comment);
        else await services.runForceActions.forceExecute(proofOf(request, 'run'), comment);
        return reply.code(202).send();
      },
    );
  }
}
