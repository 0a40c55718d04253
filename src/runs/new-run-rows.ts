import type { PhasesTable as PhaseRow, PolicyEvaluationsTable, RunsTable as RunRow, TaskResultsTable, TaskStagesTable } from '../db/schema.js';
import { newId } from '../core/ids.js';
import { runOperationOf, storedRunOptions, type RunOptions } from './run-options.js';
import { planTaskStages, type AttachedTask } from './task-stage-plan.js';
import type { ExecutionMode } from '../workspaces/execution-mode.js';

/** Every row a new run is made of, before any of it is written. */
export interface NewRunRows {
  run: RunRow;
  plan: PhaseRow;
  apply: PhaseRow;
  /** In run order, each pending with one pending result per task. */
  stages: TaskStagesTable[];
  results: TaskResultsTable[];
  /** One pending evaluation on the post-plan stage when a policy set applies to the workspace. */
  policyEvaluations: PolicyEvaluationsTable[];
}

export interface NewRunInput {
  workspaceId: string;
  configurationVersionId: string;
  planOnly: boolean;
  autoApply: boolean;
  isDestroy: boolean;
  /** The workspace's mode now; the run, its plan and apply keep it. */
  executionMode: ExecutionMode;
  message: string;
  /** refresh, target-addrs, variables …, echoed on the run (run-options.ts). */
  options: RunOptions;
  creator: { userId: string | null; name: string };
  /** The workspace's enabled tasks, in attachment order. */
  tasks: readonly AttachedTask[];
  /** The workspace's `required-approvals` now: each stage keeps it. */
  requiredApprovals: number;
  /** Whether a policy set applies to the workspace now. */
  policiesApply: boolean;
  now: string;
}

/**
 * The run, its plan and apply, and one task stage per stage value with enabled workspace tasks (each
 * with one pending result per task): pure, so the caller can write them however its database does best.
 */
export function newRunRows(input: NewRunInput): NewRunRows {
  const { now } = input;
  const run: RunRow = {
    id: newId('run'),
    workspace_id: input.workspaceId,
    configuration_version_id: input.configurationVersionId,
    status: 'pending',
    // HCP's name for the moment a run starts waiting for its turn.
    status_timestamps: JSON.stringify({ 'plan-queueable-at': now }),
    message: input.message,
    plan_only: input.planOnly ? 1 : 0,
    auto_apply: input.autoApply ? 1 : 0,
    is_destroy: input.isDestroy ? 1 : 0,
    created_by_user_id: input.creator.userId,
    created_by_name: input.creator.name,
    execution_mode: input.executionMode,
    error_message: null,
    options: storedRunOptions(input.options),
    operation: runOperationOf({ planOnly: input.planOnly, isDestroy: input.isDestroy, options: input.options }),
    confirmed_by_user_id: null,
    created_at: now,
    updated_at: now,
  };
  const phase = (prefix: 'plan' | 'apply'): PhaseRow => ({
    id: newId(prefix),
    run_id: run.id,
    status: 'pending',
    status_timestamps: JSON.stringify({}),
    has_changes: 0,
    resource_additions: 0,
    resource_changes: 0,
    resource_destructions: 0,
    resource_imports: 0,
    json_upload_id: null,
    json_bytes: null,
    execution_mode: input.executionMode,
    log_upload_id: null,
    log_bytes: null,
    agent_report: null,
    created_at: now,
    updated_at: now,
  });
  const stages: TaskStagesTable[] = [];
  const results: TaskResultsTable[] = [];
  const policyEvaluations: PolicyEvaluationsTable[] = [];
  for (const planned of planTaskStages(input.tasks, input.planOnly, input.policiesApply)) {
    const stageId = newId('ts');
    stages.push({ id: stageId, run_id: run.id, stage: planned.stage, status: 'pending', status_timestamps: JSON.stringify({}), required_approvals: input.requiredApprovals, created_at: now, updated_at: now });
    if (planned.policies) {
      policyEvaluations.push({
        id: newId('poleval'), task_stage_id: stageId, run_id: run.id, status: 'pending', status_timestamps: JSON.stringify({}),
        result_count: JSON.stringify({ 'advisory-failed': 0, 'mandatory-failed': 0, passed: 0, errored: 0 }), hold: 'none', created_at: now, updated_at: now,
      });
    }
    for (const task of planned.tasks) {
      results.push({
        id: newId('taskrs'),
        task_stage_id: stageId,
        run_id: run.id,
        task_id: task.taskId,
        task_name: task.taskName,
        task_url: task.taskUrl,
        workspace_task_id: task.workspaceTaskId,
        enforcement_level: task.enforcementLevel,
        stage: planned.stage,
        is_speculative: input.planOnly ? 1 : 0,
        status: 'pending',
        message: null,
        url: null,
        status_timestamps: JSON.stringify({}),
        access_token_hash: null,
        required_approvals: task.requiredApprovals ?? 1,
        created_at: now,
        updated_at: now,
      });
    }
  }
  return { run, plan: phase('plan'), apply: phase('apply'), stages, results, policyEvaluations };
}
