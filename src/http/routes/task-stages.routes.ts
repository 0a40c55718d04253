import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { parseInclude } from '../include.js';
import { resourceDocument, type Resource } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument } from '../reply.js';
import { IdParam, JsonApiQuery } from '../schemas.js';
import { runIncluded, runResource } from '../serializers/runs.serializer.js';
import { outcomeResource, taskResultResource, taskStageViewResource } from '../serializers/task-stages.serializer.js';
import { policyEvaluationResource, policySetOutcomeResource } from '../serializers/policies.serializer.js';
import type { OutcomeFilter } from '../../taskstages/task-stages.service.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import { TASK_STAGE_INCLUDES } from '../../taskstages/task-stages.service.js';

/** Plain JSON, as HCP Terraform takes it; every key optional (HCP Terraform's documented example sends no body). */
const OverrideBody = Type.Object({ comment: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])) });

/** Task stages and results of a run: list, show, outcomes, override. */
export async function taskStagesRoutes(app: TypedApp, services: Services): Promise<void> {
  const { taskStagesService, runsService, config } = services;
  app.get(
    '/runs/:run_id/task-stages',
    { config: { lookup: 'run' }, schema: { params: IdParam('run_id'), querystring: JsonApiQuery, tags: ['task-stages'], summary: 'List the task stages of a run' } },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await taskStagesService.listForRun(proofOf(request, 'run'), page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, taskStageViewResource));
    },
  );

  app.get(
    '/task-stages/:task_stage_id',
    {
      config: { includes: TASK_STAGE_INCLUDES, lookup: 'task-stage' },
      schema: { params: IdParam('task_stage_id'), querystring: JsonApiQuery, tags: ['task-stages'], summary: 'Show a task stage' },
    },
    async (request, reply) => {
      const include = parseInclude(request.query, TASK_STAGE_INCLUDES);
      const { stage, results, evaluations } = await taskStagesService.show(proofOf(request, 'task-stage'));
      const included: Resource[] = [];
      if (include.has('run') || include.has('run.workspace')) {
        // The included run is another resource: found and authorized by its own lookup.
        const visibleRun = await runsService.visibleRun(callerOf(request), stage.stage.run_id);
        const run = await runsService.show(visibleRun, new Set(include.has('run.workspace') ? ['workspace'] : []));
        // JSON:API: the run on the way to its workspace is included too.
        included.push(runResource(run.run, run.standing), ...runIncluded(run.related, run.standing, services.phaseLogs));
      }
      if (include.has('task-results')) included.push(...results.map(taskResultResource));
      if (include.has('policy-evaluations')) included.push(...evaluations.map(policyEvaluationResource));
      return sendDocument(reply, 200, resourceDocument({ data: taskStageViewResource(stage), included }));
    },
  );

  app.post(
    '/task-stages/:task_stage_id/actions/override',
    {
      config: { lookup: 'task-stage' },
      schema: { params: IdParam('task_stage_id'), body: OverrideBody, tags: ['task-stages'], summary: 'Override a task stage' },
    },
    async (request, reply) => {
      const stage = await taskStagesService.override(callerOf(request), proofOf(request, 'task-stage'), request.body.comment ?? null);
      return sendDocument(reply, 200, { data: taskStageViewResource(stage) });
    },
  );

  app.get(
    '/task-stages/:task_stage_id/policy-evaluations',
    {
      config: { lookup: 'task-stage' },
      schema: { params: IdParam('task_stage_id'), querystring: JsonApiQuery, tags: ['task-stages'], summary: 'List the policy evaluations of a task stage' },
    },
    async (request, reply) => {
      const result = await taskStagesService.policyEvaluations(proofOf(request, 'task-stage'), parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, policyEvaluationResource));
    },
  );

  app.get(
    '/policy-evaluations/:policy_evaluation_id/policy-set-outcomes',
    {
      config: { lookup: 'policy-evaluation' },
      schema: {
        params: IdParam('policy_evaluation_id'),
        querystring: JsonApiQuery,
        tags: ['task-stages'],
        summary: 'List the policy set outcomes of a policy evaluation (filter[n][status], filter[n][enforcement_level])',
      },
    },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await taskStagesService.policySetOutcomes(proofOf(request, 'policy-evaluation'), page, outcomeFilters(request.query));
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, policySetOutcomeResource));
    },
  );

  app.get(
    '/policy-set-outcomes/:policy_set_outcome_id',
    {
      config: { lookup: 'policy-set-outcome' },
      schema: { params: IdParam('policy_set_outcome_id'), tags: ['task-stages'], summary: 'Show a policy set outcome' },
    },
    async (request, reply) => sendDocument(reply, 200, { data: policySetOutcomeResource(proofOf(request, 'policy-set-outcome')) }),
  );

  app.get(
    '/task-results/:task_result_id',
    { config: { lookup: 'task-result' }, schema: { params: IdParam('task_result_id'), tags: ['task-stages'], summary: 'Show a task result' } },
    async (request, reply) => sendDocument(reply, 200, { data: taskResultResource(proofOf(request, 'task-result')) }),
  );

  app.get(
    '/task-results/:task_result_id/outcomes',
    {
      config: { lookup: 'task-result' },
      schema: { params: IdParam('task_result_id'), querystring: JsonApiQuery, tags: ['task-stages'], summary: 'List the outcomes of a task result' },
    },
    async (request, reply) => {
      const page = parsePage(request.query);
      const result = await taskStagesService.outcomes(proofOf(request, 'task-result'), page);
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, outcomeResource));
    },
  );
}

/** `filter[0][status]=failed&filter[0][enforcement_level]=mandatory&filter[1]…`: one filter per index. */
function outcomeFilters(query: Record<string, string>): OutcomeFilter[] {
  const byIndex = new Map<string, OutcomeFilter>();
  for (const [key, value] of Object.entries(query)) {
    const match = /^filter\[([^\]]+)\]\[(status|enforcement_level)\]$/.exec(key);
    if (!match) continue;
    const filter = byIndex.get(match[1]!) ?? {};
    if (match[2] === 'status') filter.status = value;
    else filter.enforcementLevel = value;
    byIndex.set(match[1]!, filter);
  }
  return [...byIndex.values()];
}
