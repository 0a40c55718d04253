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

/** What holds a stage: a mandatory run task that failed, a mandatory policy that failed in an overridable set. */
export interface StageHolds {
  tasks: boolean;
  policies: boolean;
}

/** A stage of run task results only, as every stage was before policies (issue 29). */
export const TASKS_ONLY: StageHolds = { tasks: true, policies: false };

/**
 * Who may override: a person (never the organization token) who owns the organization or holds
 * `manage-run-tasks` (tasks) / `manage-policy-overrides` (policy), as HCP documents. `can-override` needs the
 * right for every kind of thing that holds the stage: the tasks right for failed run tasks, the policy right
 * for failed policies, both when both failed (and, before anything failed, the rights for what the stage holds).
 */
export function taskStagePermissions(standing: OrganizationStanding, holds: StageHolds = TASKS_ONLY): TaskStagePermissions {
  const person = standing.actsAsPerson && canReadRuns(standing);
  const overrideTasks = person && (standing.isOwner || standing.access['manage-run-tasks']);
  const overridePolicy = person && (standing.isOwner || standing.access['manage-policy-overrides']);
  const needed = holds.tasks || holds.policies ? holds : TASKS_ONLY;
  return {
    'can-override-policy': overridePolicy,
    'can-override-tasks': overrideTasks,
    'can-override': (!needed.tasks || overrideTasks) && (!needed.policies || overridePolicy),
  };
}

/** Who may write policies and policy sets: owners and holders of `manage-policies`. */
export function canManagePolicies(standing: OrganizationStanding): boolean {
  return standing.isOwner || standing.access['manage-policies'];
}
