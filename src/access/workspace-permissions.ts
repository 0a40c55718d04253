import type { OrganizationStanding } from './organization-standing.js';

/**
 * Who may do what to workspaces, run tasks, workspace tasks, configuration versions, runs, plans and applies.
 * There is no per-workspace team access here: a right held at organization level covers every workspace.
 */

/** Rights that let a member see every workspace and run of the organization, without per-workspace access. */
export const WORKSPACE_READ_RIGHTS = [
  'manage-run-tasks',
  'manage-policy-overrides',
  'read-workspaces',
  'manage-workspaces',
  'manage-policies',
  'manage-agent-pools',
] as const;

/** Owners and holders of a read right see workspaces, their runs, plans, applies and configuration; anyone else gets 404. */
export function canReadWorkspaces(standing: OrganizationStanding): boolean {
  if (standing.isOwner) return true;
  if (!standing.isMember) return false;
  return WORKSPACE_READ_RIGHTS.some((key) => standing.access[key]);
}

/** Create and delete workspaces, create configuration versions. */
export function canManageWorkspaces(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && standing.access['manage-workspaces']);
}

/** Any active member lists and shows the organization's run tasks. */
export function canReadRunTasks(standing: OrganizationStanding): boolean {
  return standing.isMember;
}

/** Create, update, delete run tasks; attach them to workspaces. */
export function canManageRunTasks(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && standing.access['manage-run-tasks']);
}

/**
 * Queue runs and apply, discard or cancel them: a person (never the organization token) who owns the
 * organization or may manage its workspaces.
 */
export function canQueueRuns(standing: OrganizationStanding): boolean {
  return standing.actsAsPerson && canManageWorkspaces(standing);
}

export interface WorkspacePermissions {
  'can-update': boolean;
  'can-destroy': boolean;
  /** HCP: may delete the workspace even while it manages resources; its presence tells the tfe provider that safe-delete exists. */
  'can-force-delete': boolean;
  'can-queue-run': boolean;
  'can-queue-apply': boolean;
  'can-queue-destroy': boolean;
  'can-read-settings': boolean;
  'can-read-run-tasks': boolean;
  'can-manage-run-tasks': boolean;
}

/** What the caller may do with a workspace it can see; shown as the workspace's `permissions`. */
export function workspacePermissions(standing: OrganizationStanding): WorkspacePermissions {
  const manage = canManageWorkspaces(standing);
  const queue = canQueueRuns(standing);
  return {
    'can-update': manage,
    'can-destroy': manage,
    'can-force-delete': manage,
    'can-queue-run': queue,
    'can-queue-apply': queue,
    'can-queue-destroy': queue,
    'can-read-settings': canReadWorkspaces(standing),
    'can-read-run-tasks': canReadWorkspaces(standing),
    'can-manage-run-tasks': canManageRunTasks(standing),
  };
}
