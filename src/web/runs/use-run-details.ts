import { useEffect, useState } from 'preact/hooks';
import { segment, type ApiClient } from '../api/api-client';
import type { Document, Resource } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
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
  const stageRefs = (related('task-stages') as { id: string }[] | undefined) ?? [];
  // One request per stage (a run has at most four) brings the stage and its results.
  const stageDocuments = await Promise.all(
    stageRefs.map((ref) => api.get<Document<TaskStage['attributes']>>(`/task-stages/${segment(ref.id)}`, { include: 'task_results' })),
  );
  const results = new Map<string, TaskResult[]>();
  for (const stageDocument of stageDocuments) {
    const resultResources = (stageDocument.included ?? []).filter((resource) => resource.type === 'task-results') as unknown as TaskResult[];
    results.set(stageDocument.data.id, resultResources);
  }
  return {
    run: document.data as Run,
    workspace: byRef(related('workspace')) as RunDetails['workspace'],
    plan: byRef(related('plan')) as Phase | undefined,
    apply: byRef(related('apply')) as Phase | undefined,
    stages: stageDocuments.map((stageDocument) => stageDocument.data as TaskStage),
    results,
  };
}

/**
 * The run, its phases, stages and results; read again on a timer while the run can still move (no page
 * reload), and stops once it has settled. `replaceStage` shows a stage an action just answered with at
 * once, before the next poll, unless a poll has already seen a newer version of it.
 */
export function useRunDetails(api: ApiClient, runId: string) {
  const details = useApi(() => loadRun(api, runId), [runId]);
  const [fresher, setFresher] = useState<Map<string, TaskStage>>(new Map());

  const status = details.data?.run.attributes.status;
  const stageNames = details.data?.stages.map((stage) => stage.attributes.stage) ?? [];
  const settled = status === undefined ? details.state === 'error' : isRunSettled(status, stageNames as StageName[]);
  const interval = status && awaitsPerson(status) ? POLL_WAITING_MS : POLL_MOVING_MS;
  const { reload } = details;
  useEffect(() => {
    if (settled) return;
    const timer = setInterval(reload, interval);
    return () => clearInterval(timer);
  }, [settled, interval, reload]);

  const result = { ...details, settled, replaceStage: (stage: TaskStage) => setFresher((map) => new Map(map).set(stage.id, stage)) };
  if (result.state === 'ok' && fresher.size > 0) {
    result.data = { ...result.data, stages: result.data.stages.map((stage) => newer(stage, fresher.get(stage.id))) };
  }
  return result;
}

function newer(polled: TaskStage, local: TaskStage | undefined): TaskStage {
  if (!local) return polled;
  return Date.parse(local.attributes['updated-at']) > Date.parse(polled.attributes['updated-at']) ? local : polled;
}
