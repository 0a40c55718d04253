import type { OrganizationStanding } from './organization-standing.js';
import type { Principal } from '../core/principal.js';
import { overridePermissions, TASKS_ONLY, type OverrideCaller, type StageHolds, type TaskStagePermissions } from '../shared/override-rule.js';
import { canReadWorkspaces } from './workspace-permissions.js';

/**
 * Who may read runs, task stages and task results, and who may override a stage. Pure functions of the
 * caller's standing in the run's organization and workspace; every stage route asks these, and `permissions` on a
 * stage shows them.
 */

/**
 * Stages and results are read by whoever reads the run: owners and holders of a read right
 * (workspace-permissions.ts); anyone else gets 404, so a run's existence does not leak.
 */
export function canReadRuns(standing: OrganizationStanding): boolean {
  return canReadWorkspaces(standing);
}

export type { StageHolds, TaskStagePermissions } from '../shared/override-rule.js';
export { TASKS_ONLY } from '../shared/override-rule.js';

/** The caller as the override rule (shared/override-rule.ts) sees them, from their standing in the run's organization. */
export function overrideCallerOf(standing: OrganizationStanding): OverrideCaller {
  return {
    actsAsPerson: standing.actsAsPerson,
    isUser: standing.principal.kind === 'user',
    readsRuns: canReadRuns(standing),
    isOwner: standing.isOwner,
    // The organization's right, or the workspace's: team access with `run-tasks` / `policy-overrides` (its `admin` holds both).
    manageRunTasks: standing.access['manage-run-tasks'] || workspaceGrants(standing, 'run-tasks'),
    managePolicyOverrides: standing.access['manage-policy-overrides'] || workspaceGrants(standing, 'policy-overrides'),
    overrider: overriderOf(standing.principal),
  };
}

/** Whether the caller's team access to the run's workspace holds `key`. */
function workspaceGrants(standing: OrganizationStanding, key: 'run-tasks' | 'policy-overrides'): boolean {
  return standing.isMember && standing.workspace?.grant?.[key] === true;
}

/**
 * Who gave an earlier override, as a principal whose standing the gate can work out now (to count it again:
 * shared/override-rule.ts re-evaluates every approval). Undefined for a key no principal stands for any more.
 */
export function principalOfOverrider(overrider: string, organizationName: string): Principal | undefined {
  const [kind, id] = [overrider.slice(0, overrider.indexOf(':')), overrider.slice(overrider.indexOf(':') + 1)];
  if (overrider === 'site-admin') return { kind: 'site-admin', tokenId: '' };
  if (kind === 'user' && id) return { kind: 'user', tokenId: '', userId: id, username: '' };
  // A team token's override is judged as its team's now (the token itself may be gone); never a non-person's.
  if (kind === 'team' && id) return { kind: 'team', tokenId: '', organizationName, teamId: id, serviceAccountUserId: null, actsAsPerson: true };
  return undefined;
}

/** Who counts once among a stage's approvers: the person, or the team whose token overrode. */
export function overriderOf(principal: Principal): string {
  switch (principal.kind) {
    case 'user':
      return `user:${principal.userId}`;
    case 'team':
      return `team:${principal.teamId}`;
    case 'site-admin':
      return 'site-admin';
    case 'organization':
      return `organization:${principal.organizationName}`;
    case 'agent':
      return `agent:${principal.tokenId}`;
  }
}

/** `permissions` of a stage held by `holds`, for this caller: the override rule's answer (shared/override-rule.ts). */
export function taskStagePermissions(standing: OrganizationStanding, holds: StageHolds = TASKS_ONLY): TaskStagePermissions {
  return overridePermissions(overrideCallerOf(standing), holds);
}

/** Who may write policies and policy sets: owners and holders of `manage-policies`. */
export function canManagePolicies(standing: OrganizationStanding): boolean {
  return standing.isOwner || standing.access['manage-policies'];
}
