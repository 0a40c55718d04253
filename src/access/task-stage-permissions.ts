import type { OrganizationStanding } from './organization-standing.js';
import { canReadWorkspaces } from './workspace-permissions.js';

/**
 * Who may read runs, task stages and task results, and who may override a stage. Pure functions of the
 * caller's standing in the run's organization; every stage route asks these, and `permissions` on a
 * stage shows them.
 */

/**
 * Stages and results are read by whoever reads the run: owners and holders of a read right
 * (workspace-permissions.ts); anyone else gets 404, so a run's existence does not leak.
 */
export function canReadRuns(standing: OrganizationStanding): boolean {
  return canReadWorkspaces(standing);
}

export interface TaskStagePermissions {
  'can-override-policy': boolean;
  'can-override-tasks': boolean;
  'can-override': boolean;
}

/**
 * Who may override: a person (never the organization token) who owns the organization or holds
 * `manage-run-tasks` (tasks) / `manage-policy-overrides` (policy). A stage here holds run task results
 * only (its policy evaluations are always empty), so overriding it needs the tasks right:
 * `can-override` is `can-override-tasks`.
 */
export function taskStagePermissions(standing: OrganizationStanding): TaskStagePermissions {
  const person = standing.actsAsPerson && canReadRuns(standing);
  const overrideTasks = person && (standing.isOwner || standing.access['manage-run-tasks']);
  const overridePolicy = person && (standing.isOwner || standing.access['manage-policy-overrides']);
  return {
    'can-override-policy': overridePolicy,
    'can-override-tasks': overrideTasks,
    'can-override': overrideTasks,
  };
}
