import type { OrganizationStanding } from './organization-standing.js';
import { rankOf, type EffectiveWorkspaceAccess } from './workspace-access.js';

/**
 * Who may do what to workspaces, run tasks, workspace tasks, configuration versions, runs, plans and applies.
 * Two sources, the stronger wins (HCP: "whichever access level is higher"): the caller's organization-level
 * rights (owners, and `manage-workspaces`, are admins of every workspace; a read right reads every workspace),
 * and their teams' access to the one workspace asked about (`standing.workspace`, workspace-access.ts).
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

/** The caller's team access to the workspace of this request (none outside one). */
function grantOf(standing: OrganizationStanding): EffectiveWorkspaceAccess | undefined {
  return standing.workspace?.grant;
}

/** Owners and holders of a read right see every workspace of the organization (and their runs, plans, applies, configuration). */
export function canReadAllWorkspaces(standing: OrganizationStanding): boolean {
  if (standing.isOwner) return true;
  if (!standing.isMember) return false;
  return WORKSPACE_READ_RIGHTS.some((key) => standing.access[key]);
}

/** Whether the organization-level rights alone already decide everything about any workspace (its teams' access adds nothing). */
export function administersAllWorkspaces(standing: OrganizationStanding): boolean {
  return canManageWorkspaces(standing);
}

/** Reads the workspace of this request: a read right, or any team access to it; anyone else gets 404. */
export function canReadWorkspaces(standing: OrganizationStanding): boolean {
  return canReadAllWorkspaces(standing) || (standing.isMember && grantOf(standing) !== undefined);
}

/** Create workspaces (organization level); update and delete any of them. */
export function canManageWorkspaces(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && standing.access['manage-workspaces']);
}

/** Settings, deletion and team access of the workspace of this request: organization managers, and its `admin` teams. */
export function canAdministerWorkspace(standing: OrganizationStanding): boolean {
  return canManageWorkspaces(standing) || (standing.isMember && grantOf(standing)?.admin === true);
}

/** Any active member lists and shows the organization's run tasks. */
export function canReadRunTasks(standing: OrganizationStanding): boolean {
  return standing.isMember;
}

/** Create, update, delete run tasks (organization level). */
export function canManageRunTasks(standing: OrganizationStanding): boolean {
  return standing.isOwner || (standing.isMember && standing.access['manage-run-tasks']);
}

/** Attach run tasks to the workspace of this request: `manage-run-tasks`, or team access with `run-tasks` (HCP's "Manage Workspace Run Tasks"). */
export function canAttachRunTasks(standing: OrganizationStanding): boolean {
  return canManageRunTasks(standing) || (standing.isMember && grantOf(standing)?.['run-tasks'] === true);
}

/** The `runs` level the caller's team access gives, as a rank (-1: none). */
function runsRank(standing: OrganizationStanding): number {
  const grant = grantOf(standing);
  return standing.isMember && grant ? rankOf('runs', grant.runs) : -1;
}

/**
 * Queue runs (and upload their configuration, and drive their plan through the pipeline protocol): a person
 * (never the organization token) who manages workspaces, or whose team access gives `runs: plan` or more.
 */
export function canQueueRuns(standing: OrganizationStanding): boolean {
  return standing.actsAsPerson && (canManageWorkspaces(standing) || runsRank(standing) >= rankOf('runs', 'plan'));
}

/** Apply, discard and cancel runs (and drive their apply): as queueing, with `runs: apply`. */
export function canApplyRuns(standing: OrganizationStanding): boolean {
  return standing.actsAsPerson && (canManageWorkspaces(standing) || runsRank(standing) >= rankOf('runs', 'apply'));
}

/** Upload a configuration version: who manages workspaces (the organization token too, as before), or may queue runs. */
export function canUploadConfiguration(standing: OrganizationStanding): boolean {
  return canManageWorkspaces(standing) || canQueueRuns(standing);
}

/** Lock and unlock (HCP's `workspace-locking`): stored and shown; Teamstage keeps no workspace locks of its own yet. */
export function canLockWorkspace(standing: OrganizationStanding): boolean {
  return canManageWorkspaces(standing) || (standing.isMember && grantOf(standing)?.['workspace-locking'] === true);
}

/** A ranked key of the caller's access, organization managers holding the most. */
function atLeast(standing: OrganizationStanding, key: 'variables' | 'state-versions', value: 'read' | 'write'): boolean {
  if (canManageWorkspaces(standing)) return true;
  if (canReadAllWorkspaces(standing) && value === 'read') return true;
  const grant = grantOf(standing);
  return standing.isMember && grant !== undefined && rankOf(key, grant[key]) >= rankOf(key, value);
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
  'can-lock': boolean;
  'can-unlock': boolean;
  'can-read-variable': boolean;
  'can-update-variable': boolean;
  'can-read-state-versions': boolean;
}

/** What the caller may do with a workspace it can see; shown as the workspace's `permissions`. */
export function workspacePermissions(standing: OrganizationStanding): WorkspacePermissions {
  const admin = canAdministerWorkspace(standing);
  const apply = canApplyRuns(standing);
  const lock = canLockWorkspace(standing);
  return {
    'can-update': admin,
    'can-destroy': admin,
    'can-force-delete': admin,
    'can-queue-run': canQueueRuns(standing),
    'can-queue-apply': apply,
    'can-queue-destroy': apply,
    'can-read-settings': canReadWorkspaces(standing),
    'can-read-run-tasks': canReadWorkspaces(standing),
    'can-manage-run-tasks': canAttachRunTasks(standing),
    'can-lock': lock,
    'can-unlock': lock,
    'can-read-variable': atLeast(standing, 'variables', 'read'),
    'can-update-variable': atLeast(standing, 'variables', 'write'),
    'can-read-state-versions': atLeast(standing, 'state-versions', 'read'),
  };
}
