import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api/api-client';
import { segment, type ApiClient } from '../api/api-client';
import type { Document, ListDocument, Resource } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { OPEN_POLICY_EVALUATION_STATUSES } from '../../shared/policy-evaluation-statuses.js';
import { planJson, showsPlanChanges } from './plan-json-cache';
import type { EvaluationWithSets, PolicyEvaluationView, PolicySetOutcomeView } from './policy-findings';
import { awaitsPerson, isRunSettled, type Phase, type Run, type StageName, type TaskResult, type TaskStage } from './run-types';

/** Everything the run page shows, fetched together so one poll gives one consistent picture. */
export interface RunDetails {
  run: Run;
  workspace?: Resource<{ name: string }>;
  plan?: Phase;
  apply?: Phase;
  stages: TaskStage[];
  /** Results by stage id. */
  results: Map<string, TaskResult[]>;
  /** Policy evaluations by stage id, each with the set outcomes it judged. */
  policies: Map<string, EvaluationWithSets[]>;
}

/** How often a moving run is read again: quickly while the server works, slowly while it waits for a person. */
const POLL_MOVING_MS = 1000;
const POLL_WAITING_MS = 4000;

async function loadRun(api: ApiClient, runId: string): Promise<RunDetails> {
  const document = await api.get<Document<Run['attributes']>>(`/runs/${segment(runId)}`, { include: 'plan,apply,workspace' });
  const included = document.included ?? [];
  const related = (name: string) => document.data.relationships?.[name]?.data;
  const byRef = (ref: unknown) => {
    const id = (ref as { id?: string } | null | undefined)?.id;
    return id ? included.find((resource) => resource.id === id) : undefined;
  };
  // The structured plan's JSON (megabytes on a large plan) starts now, beside the stage requests and the first render.
  const plan = byRef(related('plan')) as Phase | undefined;
  if (showsPlanChanges(plan)) void planJson(api, plan.id);
  const stageRefs = (related('task-stages') as { id: string }[] | undefined) ?? [];
  // One request per stage (a run has at most four) brings the stage and its results.
  const stageDocuments = await Promise.all(
    stageRefs.map((ref) => api.get<Document<TaskStage['attributes']>>(`/task-stages/${segment(ref.id)}`, { include: 'task_results,policy_evaluations' })),
  );
  const results = new Map<string, TaskResult[]>();
  const policies = new Map<string, EvaluationWithSets[]>();
  for (const stageDocument of stageDocuments) {
    const resultResources = (stageDocument.included ?? []).filter((resource) => resource.type === 'task-results') as unknown as TaskResult[];
    results.set(stageDocument.data.id, resultResources);
    const evaluations = (stageDocument.included ?? []).filter((resource) => resource.type === 'policy-evaluations') as unknown as PolicyEvaluationView[];
    // A stage judged by policies has one evaluation; its set outcomes exist once it has judged.
    policies.set(stageDocument.data.id, await Promise.all(evaluations.map((evaluation) => withSets(api, evaluation))));
  }
  return {
    run: document.data as Run,
    workspace: byRef(related('workspace')) as RunDetails['workspace'],
    plan,
    apply: byRef(related('apply')) as Phase | undefined,
    stages: stageDocuments.map((stageDocument) => stageDocument.data as TaskStage),
    results,
    policies,
  };
}

/** Statuses in which an evaluation has not judged yet: it has no set outcomes to read. */
const NOT_JUDGED: ReadonlySet<string> = new Set(OPEN_POLICY_EVALUATION_STATUSES);

async function withSets(api: ApiClient, evaluation: PolicyEvaluationView): Promise<EvaluationWithSets> {
  if (NOT_JUDGED.has(evaluation.attributes.status)) return { evaluation, sets: [] };
  const document = await api.get<ListDocument<PolicySetOutcomeView['attributes']>>(`/policy-evaluations/${segment(evaluation.id)}/policy-set-outcomes`, {
    'page[size]': '100',
  });
  return { evaluation, sets: document.data as PolicySetOutcomeView[] };
}

/**
 * The run, its phases, stages and results; read again on a timer while the run can still move (no page
 * reload), and stops once it has settled. `replaceStage` shows a stage an action just answered with at
 * once, before the next poll, unless a poll has already seen a newer version of it.
 */
export function useRunDetails(api: ApiClient, runId: string) {
  const fetched = useApi(() => loadRun(api, runId), [runId]);
  const [fresher, setFresher] = useState<Map<string, TaskStage>>(new Map());
  // A refresh that fails (the server restarting, a dropped connection) keeps the last picture on screen,
  // says so, and the polling goes on; only a first load that fails shows the error instead of the run.
  const lastGood = useRef<{ runId: string; data: RunDetails } | null>(null);
  if (fetched.state === 'ok') lastGood.current = { runId, data: fetched.data };
  const kept = lastGood.current?.runId === runId ? lastGood.current.data : undefined;
  const refreshError: ApiError | null = fetched.state === 'error' && kept ? fetched.error : null;

  const status = kept?.run.attributes.status;
  const stageNames = kept?.stages.map((stage) => stage.attributes.stage) ?? [];
  const settled = status === undefined ? fetched.state === 'error' : isRunSettled(status, stageNames as StageName[]);
  const interval = status && awaitsPerson(status) && !refreshError ? POLL_WAITING_MS : POLL_MOVING_MS;
  const { reload } = fetched;
  useEffect(() => {
    if (settled) return;
    const timer = setInterval(reload, interval);
    return () => clearInterval(timer);
  }, [settled, interval, reload]);

  const replaceStage = (stage: TaskStage) => setFresher((map) => new Map(map).set(stage.id, stage));
  if (!kept) return { ...fetched, settled, refreshError, replaceStage };
  const data = fresher.size > 0 ? { ...kept, stages: kept.stages.map((stage) => newer(stage, fresher.get(stage.id))) } : kept;
  return { state: 'ok' as const, data, error: undefined, reload, settled, refreshError, replaceStage };
}

function newer(polled: TaskStage, local: TaskStage | undefined): TaskStage {
  if (!local) return polled;
  return Date.parse(local.attributes['updated-at']) > Date.parse(polled.attributes['updated-at']) ? local : polled;
}
