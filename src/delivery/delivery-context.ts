import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Everything one outbound request needs, read in one query. */
export interface DeliveryContext {
  resultId: string;
  resultStatus: string;
  resultUpdatedAt: string;
  stageId: string;
  stage: string;
  stageStatus: string;
  enforcementLevel: string;
  isSpeculative: boolean;
  taskUrl: string;
  /** Write-only secret of the task; null when the task has none (or was deleted). */
  hmacKey: string | null;
  runId: string;
  runMessage: string;
  runCreatedAt: string;
  runCreatedBy: string | null;
  configurationVersionId: string | null;
  planId: string | null;
  workspaceId: string;
  workspaceName: string;
  workspaceWorkingDirectory: string;
  organizationName: string;
}

export interface ContextRow {
  result_id: string;
  result_status: string;
  result_updated_at: string;
  enforcement_level: string;
  is_speculative: number;
  task_url: string;
  stage: string;
  stage_id: string;
  stage_status: string;
  hmac_key: string | null;
  run_id: string;
  run_message: string;
  run_created_at: string;
  created_by_name: string | null;
  configuration_version_id: string | null;
  plan_id: string | null;
  workspace_id: string;
  workspace_name: string;
  working_directory: string;
  organization_name: string;
}

export function toContext(row: ContextRow): DeliveryContext {
  return {
    resultId: row.result_id,
    resultStatus: row.result_status,
    resultUpdatedAt: row.result_updated_at,
    stageId: row.stage_id,
    stage: row.stage,
    stageStatus: row.stage_status,
    enforcementLevel: row.enforcement_level,
    isSpeculative: Number(row.is_speculative) === 1,
    taskUrl: row.task_url,
    hmacKey: row.hmac_key ?? null,
    runId: row.run_id,
    runMessage: row.run_message,
    runCreatedAt: row.run_created_at,
    runCreatedBy: row.created_by_name,
    configurationVersionId: row.configuration_version_id,
    planId: row.plan_id ?? null,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    workspaceWorkingDirectory: row.working_directory,
    organizationName: row.organization_name,
  };
}

/** The one query that reads a delivery's context: result, stage, task, run, plan and workspace. */
export function contextQuery(db: Kysely<Database>, resultId: string) {
  return db
    .selectFrom('task_results as r')
    .innerJoin('task_stages as s', 's.id', 'r.task_stage_id')
    .innerJoin('runs', 'runs.id', 'r.run_id')
    .innerJoin('workspaces as w', 'w.id', 'runs.workspace_id')
    .leftJoin('tasks as t', 't.id', 'r.task_id')
    .leftJoin('plans as p', 'p.run_id', 'r.run_id')
    .select([
      'r.id as result_id', 'r.status as result_status', 'r.updated_at as result_updated_at', 'r.enforcement_level',
      'r.is_speculative', 'r.task_url', 'r.stage', 's.id as stage_id', 's.status as stage_status', 't.hmac_key',
      'runs.id as run_id', 'runs.message as run_message', 'runs.created_at as run_created_at', 'runs.created_by_name',
      'runs.configuration_version_id', 'p.id as plan_id', 'w.id as workspace_id', 'w.name as workspace_name',
      'w.working_directory', 'w.organization_name',
    ])
    .where('r.id', '=', resultId);
}
