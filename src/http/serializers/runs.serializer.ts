import { parseTimestamps } from '../../core/status-timestamps.js';
import type { OrganizationStanding } from '../../access/organization-standing.js';
import { canApplyRuns } from '../../access/workspace-permissions.js';
import { uniqueResources, type Resource } from '../jsonapi.js';
import { isCancelable, isDiscardable, transition, type RunStatus } from '../../runs/run-state-machine.js';
import { runFactsOf } from '../../runs/run-facts.js';
import { forceCancelAvailableAt, forceCancelRefusal } from '../../runs/force-cancel.js';
import { parseRunOptions } from '../../runs/run-options.js';
import { userResource } from './users.serializer.js';
import type { RunRelated, RunView } from '../../runs/run-view.js';
import { configurationVersionResource } from './configuration-versions.serializer.js';
import { applyResource, planResource, type LogUrls } from './phases.serializer.js';
import { workspaceResource } from './workspaces.serializer.js';

/** Type `runs`: HCP's attributes that matter to clients, `actions` from the state machine, `permissions` for the caller. */
export function runResource(view: RunView, standing: OrganizationStanding): Resource {
  const { row } = view;
  const status = row.status;
  const facts = runFactsOf(row, view.stages, view.hasChanges);
  // Apply, cancel and discard: the access table's `run act` (runs: apply, or manage-workspaces).
  const queue = canApplyRuns(standing);
  const timestamps = parseTimestamps(row.status_timestamps);
  const options = parseRunOptions(row.options);
  return {
    id: row.id,
    type: 'runs',
    attributes: {
      status,
      'status-timestamps': timestamps,
      message: row.message,
      source: 'tfe-api',
      'trigger-reason': 'manual',
      'plan-only': row.plan_only === 1,
      'auto-apply': row.auto_apply === 1,
      'is-destroy': row.is_destroy === 1,
      'has-changes': view.hasChanges,
      // As asked at create (run-options.ts), with HCP's defaults.
      refresh: options.refresh,
      'refresh-only': options.refreshOnly,
      'allow-empty-apply': options.allowEmptyApply,
      'replace-addrs': options.replaceAddrs,
      'target-addrs': options.targetAddrs,
      variables: options.variables,
      'save-plan': options.savePlan,
      // HCP: the version a plan-only run was asked for, else the workspace's (null here: the executor's own).
      'terraform-version': options.terraformVersion,
      'position-in-queue': view.positionInQueue,
      'created-at': row.created_at,
      'canceled-at': timestamps['canceled-at'] ?? null,
      // HCP: set once a cancel was asked for; force-cancel is refused before it (src/runs/force-cancel.ts).
      'force-cancel-available-at': forceCancelAvailableAt(timestamps),
      // Teamstage's: why an errored run errored (also the description of its `errored` run event).
      'error-message': row.error_message ?? null,
      actions: {
        'is-cancelable': isCancelable(status, facts),
        'is-confirmable': transition(status, 'confirm', facts) !== null,
        'is-discardable': isDiscardable(status, facts),
        'is-force-cancelable': forceCancelRefusal(status, timestamps, new Date()) === null,
      },
      permissions: {
        'can-apply': queue,
        'can-cancel': queue,
        'can-discard': queue,
        'can-force-cancel': queue,
        'can-force-execute': queue,
      },
    },
    relationships: {
      workspace: { data: { id: row.workspace_id, type: 'workspaces' } },
      'configuration-version': { data: row.configuration_version_id ? { id: row.configuration_version_id, type: 'configuration-versions' } : null },
      plan: { data: view.planId ? { id: view.planId, type: 'plans' } : null },
      apply: { data: view.applyId ? { id: view.applyId, type: 'applies' } : null },
      'task-stages': { data: view.stages.map((stage) => ({ id: stage.id, type: 'task-stages' })) },
      'created-by': { data: row.created_by_user_id ? { id: row.created_by_user_id, type: 'users' } : null },
      'confirmed-by': { data: row.confirmed_by_user_id ? { id: row.confirmed_by_user_id, type: 'users' } : null },
      // The record (GET /runs/:id/run-events, /runs/:id/comments): HCP lists them on the run, creation first.
      'run-events': { data: view.eventIds.map((id) => ({ id, type: 'run-events' })) },
      comments: { data: view.commentIds.map((id) => ({ id, type: 'comments' })) },
    },
    links: { self: `/api/v2/runs/${row.id}` },
  };
}

/**
 * `included` of a run document: plans, applies, the workspace, configuration versions, then the task stages
 * (`include=task_stages`, read from the task stage side), each once.
 */
export function runIncluded(related: RunRelated, standing: OrganizationStanding, logUrls: LogUrls, taskStages: Resource[] = []): Resource[] {
  return uniqueResources([
    ...related.plans.map((plan) => planResource(plan, logUrls)),
    ...related.applies.map((apply) => applyResource(apply, logUrls)),
    ...(related.workspace ? [workspaceResource(related.workspace, standing)] : []),
    ...related.versions.map((version) => configurationVersionResource(version)),
    // Emails are not shown here: a run's reader may not see every member's address.
    ...related.users.map((user) => userResource(user, { showEmail: false })),
    ...taskStages,
  ]);
}
