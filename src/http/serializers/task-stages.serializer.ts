import type { TaskStagePermissions } from '../../access/task-stage-permissions.js';
import type { Resource } from '../jsonapi.js';
import { isOverridable } from '../../shared/override-rule.js';
import { parseTimestamps } from '../../core/status-timestamps.js';
import type { OutcomeRow, TaskResultRow, TaskStageRow } from '../../taskstages/task-stages.repository.js';
import type { StageApprovals, TaskStageView } from '../../taskstages/task-stages.service.js';

/** `permissions` and `actions` on every stage document, so clients know whether they may override. */
export function taskStageResource(stage: TaskStageRow, resultIds: string[], permissions: TaskStagePermissions, evaluationIds: string[] = [], approvals?: StageApprovals): Resource {
  return {
    id: stage.id,
    type: 'task-stages',
    attributes: {
      status: stage.status,
      stage: stage.stage,
      'status-timestamps': parseTimestamps(stage.status_timestamps),
      'created-at': stage.created_at,
      'updated-at': stage.updated_at,
      permissions,
      actions: { 'is-overridable': isOverridable(stage.status) },
      // Teamstage's: how many distinct people's overrides the stage needs, how many it has, and who gave them.
      ...(approvals
        ? {
            'required-approvals': approvals.required,
            approvals: approvals.given,
            overrides: approvals.overrides.map((override) => ({
              'overridden-by': override.overridden_by_name ?? override.overridden_by,
              // Who counts once (`user:<id>`, `team:<id>`): the console asks the override rule whether the reader already counts.
              overrider: override.overridden_by,
              comment: override.comment,
              'created-at': override.created_at,
            })),
          }
        : {}),
    },
    relationships: {
      run: { data: { id: stage.run_id, type: 'runs' } },
      'task-results': { data: resultIds.map((id) => ({ id, type: 'task-results' })) },
      'policy-evaluations': { data: evaluationIds.map((id) => ({ id, type: 'policy-evaluations' })) },
    },
    links: { self: `/api/v2/task-stages/${stage.id}` },
  };
}

/** Type `task-results`. */
export function taskResultResource(result: TaskResultRow): Resource {
  return {
    id: result.id,
    type: 'task-results',
    attributes: {
      message: result.message,
      status: result.status,
      'status-timestamps': parseTimestamps(result.status_timestamps),
      url: result.url,
      'created-at': result.created_at,
      'updated-at': result.updated_at,
      'task-id': result.task_id,
      'task-name': result.task_name,
      'task-url': result.task_url,
      stage: result.stage,
      'is-speculative': Number(result.is_speculative) === 1,
      'workspace-task-id': result.workspace_task_id,
      'workspace-task-enforcement-level': result.enforcement_level,
    },
    relationships: {
      'task-stage': { data: { id: result.task_stage_id, type: 'task-stages' } },
    },
    links: { self: `/api/v2/task-results/${result.id}` },
  };
}

/** What a task reported with its callback (`relationships.outcomes.data[]`), served at `/task-results/:id/outcomes`. */
export function outcomeResource(outcome: OutcomeRow): Resource {
  return {
    id: outcome.id,
    type: 'task-result-outcomes',
    attributes: {
      'outcome-id': outcome.outcome_id,
      description: outcome.description,
      body: outcome.body,
      url: outcome.url,
      tags: safeJson(outcome.tags),
      'created-at': outcome.created_at,
    },
    relationships: {
      'task-result': { data: { id: outcome.task_result_id, type: 'task-results' } },
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

export function taskStageViewResource(view: TaskStageView): Resource {
  return taskStageResource(view.stage, view.resultIds, view.permissions, view.evaluationIds, view.approvals);
}
