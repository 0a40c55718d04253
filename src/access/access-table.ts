import { Errors, type ApiError } from '../core/errors.js';
import type { AnyPrincipal } from '../core/principal.js';
import { editionHasTeam } from './editions.js';
import type { OrganizationStanding } from './organization-standing.js';
import { decideOverride, STAGE_HOLDING_NOTHING, type OverrideRefusal, type OverrideStageFacts } from '../shared/override-rule.js';
import { canManagePolicies, canReadRuns, overrideCallerOf } from './task-stage-permissions.js';
import { canCreateTeams, canGrantOrganizationAccess, canSeeTeam, permissionsBesideOwnersRule, teamPermissions, type TeamFacts } from './team-permissions.js';
import {
  canAdministerWorkspace, canApplyRuns, canAttachRunTasks, canLockWorkspace, canManageRunTasks, canManageWorkspaces, canQueueRuns, canReadRunTasks, canReadWorkspaces,
  canUploadConfiguration,
} from './workspace-permissions.js';
import {
  canCreateWorkspaceIn, canDeleteProject, canManageProjects, canManageProjectTeamAccess, canMoveWorkspacesOf, canReadProject, canUpdateProject,
} from './project-permissions.js';
import { allow, allowOrDeny, allowOrHide, deny, hide, type Verdict } from './verdict.js';

/**
 * WHO MAY DO WHAT: the one table. For each thing (the rows' first key) and action, a rule that takes the
 * caller's standing in the thing's organization (and, for a workspace and what is in it, the caller's team access
 * to that workspace: `standing.workspace`, attached by workspace-gate.ts) and answers allow, hide (404) or deny (403).
 *
 * Two rules hold for every row, and live here alone:
 *  - a caller who may not see a thing gets 404, never 403: it must not learn that the thing exists;
 *  - what the table does not allow is 404 too; a 403 is only for a caller who can see the thing and
 *    is refused this one action (each `allowOrDeny` below says which error explains why).
 * The rights themselves (who counts as owner, which organization-access key grants what) are the
 * functions of team-permissions.ts, workspace-permissions.ts and task-stage-permissions.ts.
 *
 * A caller outside the organization (an outsider's standing, or no organization at all) is hidden from
 * everything before any row is asked: see require-access.ts.
 */

/** What a rule needs to know about the thing, per kind of thing. */
export interface ThingFacts {
  organization: { name: string };
  membership: { inOwnersTeam?: boolean };
  team: TeamFacts;
  /** A team token, found by its own id. */
  'team-token': TeamFacts;
  workspace: Record<string, never>;
  'configuration-version': Record<string, never>;
  'run-task': Record<string, never>;
  run: { action?: string };
  plan: Record<string, never>;
  apply: Record<string, never>;
  /** The stage as the override rule reads it (who may override depends on what holds it); one holding nothing when not given. */
  'task-stage': { stage?: OverrideStageFacts };
  'task-result': Record<string, never>;
  /** Whether the organization's edition has policies (writes are refused without). */
  policy: { policiesEntitled: boolean };
  'policy-set': { policiesEntitled: boolean };
  'policy-evaluation': Record<string, never>;
  'policy-set-outcome': Record<string, never>;
  /** An agent pool (and its agent tokens). */
  'agent-pool': Record<string, never>;
  /** A team's access to a workspace (standing carries the workspace): the team, as team rows decide who sees it. */
  'team-workspace': { team: TeamFacts };
  /** A project (standing carries the caller's access to it: `standing.project`, project-gate.ts). */
  project: Record<string, never>;
  /** A team's access to a project (standing carries the project): the team, as team rows decide who sees it. */
  'team-project': { team: TeamFacts };
}
export type Thing = keyof ThingFacts;

type Rule<F> = (standing: OrganizationStanding, facts: F) => Verdict;

/** What a hidden thing looks like: exactly what a missing one looks like. */
export const HIDDEN_AS: { [T in Thing]: (facts: ThingFacts[T]) => ApiError } = {
  organization: (facts) => Errors.organizationNotFound(facts.name),
  membership: () => Errors.membershipNotFound(),
  team: () => Errors.teamNotFound(),
  'team-token': () => Errors.tokenNotFound(),
  workspace: () => Errors.workspaceNotFound(),
  'configuration-version': () => Errors.configurationVersionNotFound(),
  'run-task': () => Errors.runTaskNotFound(),
  run: () => Errors.runNotFound(),
  plan: () => Errors.planNotFound(),
  apply: () => Errors.applyNotFound(),
  'task-stage': () => Errors.taskStageNotFound(),
  'task-result': () => Errors.taskResultNotFound(),
  policy: () => Errors.policyNotFound(),
  'policy-set': () => Errors.policySetNotFound(),
  'policy-evaluation': () => Errors.policyEvaluationNotFound(),
  'policy-set-outcome': () => Errors.policySetOutcomeNotFound(),
  'team-workspace': () => Errors.teamAccessNotFound(),
  'agent-pool': () => Errors.agentPoolNotFound(),
  project: () => Errors.projectNotFound(),
  'team-project': () => Errors.teamProjectAccessNotFound(),
};

/** Writing policies and policy sets: members see them; only owners and `manage-policies` change them, if the edition has them. */
const policyWrite = (s: OrganizationStanding, facts: { policiesEntitled: boolean }): Verdict =>
  !canManagePolicies(s) ? deny(Errors.managePoliciesNeeded()) : !facts.policiesEntitled ? deny(Errors.editionLacksPolicies()) : allow;

/** The 403 of each reason the override rule refuses a caller who sees the stage. */
const OVERRIDE_REFUSALS: Record<OverrideRefusal, (required: number) => ApiError> = {
  rights: () => Errors.overrideNotAllowed(),
  'not-a-person': (required) => Errors.overrideNeedsPeople(required),
  'own-run': () => Errors.overrideOwnRun(),
};

const manageMembers = (s: OrganizationStanding) => s.isOwner || s.access['manage-membership'];
const canManageAgentPools = (s: OrganizationStanding) => s.isOwner || s.access['manage-agent-pools'];
/** A team's refusals are 403 only where the owners-team rule is the sole reason (the caller may change teams like it). */
const teamAction = (key: keyof ReturnType<typeof teamPermissions>, refusal: () => ApiError): Rule<TeamFacts> => (s, team) => {
  if (teamPermissions(s, team)[key]) return allow;
  return team.isOwners && permissionsBesideOwnersRule(s, team)[key] ? deny(refusal()) : hide;
};

/** Whether the organization's edition has this team: without the teams entitlement, only the owners team counts. */
const editionHas = (s: OrganizationStanding, team: TeamFacts) => editionHasTeam({ teams: s.teamsEntitled }, team);

export const ACCESS_TABLE = {
  organization: {
    /** Any active member, any token of the organization, a site admin. */
    read: () => allow,
    /** Settings, entitlements and the organization token: owners only. */
    administer: (s) => allowOrHide(s.isOwner),
    'invite-member': (s) => allowOrHide(manageMembers(s)),
    /** Not for organizations whose edition has no teams. */
    'create-team': (s) => allowOrHide(s.teamsEntitled && canCreateTeams(s)),
    /** Creating a team with any organization-access key set. */
    'create-team-with-access': (s) => allowOrHide(s.teamsEntitled && canCreateTeams(s) && canGrantOrganizationAccess(s)),
    'list-run-tasks': (s) => allowOrHide(canReadRunTasks(s)),
    /** Nothing here a member could be refused: without the right, the action is simply not in the table. */
    'create-run-task': (s) => allowOrHide(canManageRunTasks(s)),
    'create-workspace': (s) => allowOrDeny(canManageWorkspaces(s), canReadWorkspaces(s), Errors.createWorkspacesNeeded),
    /** HCP: owners and `manage-agent-pools` make agent pools; other members are refused (403). */
    'create-agent-pool': (s) => allowOrDeny(canManageAgentPools(s), s.isMember, Errors.manageAgentPoolsNeeded),
    /** HCP: owners and `manage-projects` make projects; other members are refused (403). */
    'create-project': (s) => allowOrDeny(canManageProjects(s), s.isMember, Errors.manageProjectsNeeded),
  },
  membership: {
    read: () => allow,
    /** Removing a member of the owners team would demote an owner: only owners do that. */
    delete: (s, m) => (!manageMembers(s) ? hide : m.inOwnersTeam && !s.isOwner ? deny(Errors.onlyOwnersRemoveOwners()) : allow),
  },
  team: {
    /** Members see teams visible to the organization and the secret teams they belong to. */
    read: (s, team) => allowOrHide(canSeeTeam(s, team)),
    /** Name, SSO id, visibility, member token management. */
    'update-settings': teamAction('can-update-visibility', Errors.onlyOwnersChangeOwnersTeam),
    /** The owners team's access is fixed (a 422 later), but only for callers who could change access at all. */
    'update-access': (s, team) =>
      allowOrHide(team.isOwners ? canSeeTeam(s, team) && canGrantOrganizationAccess(s) : teamPermissions(s, team)['can-update-organization-access']),
    delete: teamAction('can-destroy', Errors.ownersTeamCannotBeDeleted),
    /** Listing and removing members: owners may still empty a team the edition does not have. */
    'manage-members': (s, team) => allowOrHide(teamPermissions(s, team)['can-update-membership']),
    /** Adding members: not to a team the edition does not have, it would grant nothing. */
    'add-members': (s, team) =>
      !teamPermissions(s, team)['can-update-membership'] ? hide : !editionHas(s, team) ? deny(Errors.editionLacksTeams()) : allow,
    /** Listing and revoking tokens: owners may still revoke those of a team the edition does not have. */
    'manage-tokens': (s, team) => allowOrHide(teamPermissions(s, team)['can-update-api-token']),
    /**
     * Creating a token: not for a team the edition does not have (it would authenticate nothing),
     * and not the owners team's for a caller that is not a person (the organization token, or a token it
     * minted): that token acts as an owner, so the caller would mint itself the runs and overrides it is
     * refused (only people create runs and overrides).
     */
    'create-token': (s, team) => {
      if (!teamPermissions(s, team)['can-update-api-token']) return hide;
      if (!editionHas(s, team)) return deny(Errors.editionLacksTeams());
      return team.isOwners && !s.actsAsPerson ? deny(Errors.notAPersonForOwnersToken()) : allow;
    },
  },
  'team-token': {
    manage: (s, team) => allowOrHide(teamPermissions(s, team)['can-update-api-token']),
  },
  /**
   * A workspace and everything read through it: the caller's organization-level rights or their teams' access to
   * this workspace (workspace-permissions.ts): a workspace the caller cannot read is 404, an action refused on one
   * it can read is 403.
   */
  workspace: {
    read: (s) => allowOrHide(canReadWorkspaces(s)),
    /** Settings and deletion: organization `manage-workspaces`, or `admin` access to the workspace. */
    manage: (s) => allowOrDeny(canAdministerWorkspace(s), canReadWorkspaces(s), Errors.manageWorkspacesNeeded),
    /** Uploading a configuration version: whoever manages workspaces or may queue runs in this one (HCP: "queue plans"). */
    'upload-configuration': (s) => allowOrDeny(canUploadConfiguration(s), canReadWorkspaces(s), Errors.queueRunsNeeded),
    'queue-run': (s) =>
      allowOrDeny(canQueueRuns(s), canReadWorkspaces(s), s.actsAsPerson ? Errors.queueRunsNeeded : Errors.notAPersonForRuns),
    /** `manage-run-tasks`, or team access with `run-tasks` (its `admin` has it). */
    'attach-run-task': (s) => allowOrDeny(canAttachRunTasks(s), canReadWorkspaces(s), Errors.attachRunTasksNeeded),
    /** Granting teams access to it (HCP: workspace admins and `manage-workspaces`). */
    'manage-team-access': (s) => allowOrDeny(canAdministerWorkspace(s), canReadWorkspaces(s), Errors.manageTeamAccessNeeded),
    /** HCP's lock and unlock (a gate's freeze switch): `can-lock`, from organization `manage-workspaces` or team access with `workspace-locking`. */
    lock: (s) => allowOrDeny(canLockWorkspace(s), canReadWorkspaces(s), Errors.manageWorkspacesNeeded),
    /** HCP gives force-unlock to the workspace's admins. */
    'force-unlock': (s) => allowOrDeny(canAdministerWorkspace(s), canReadWorkspaces(s), Errors.manageWorkspacesNeeded),
  },
  'configuration-version': {
    read: (s) => allowOrHide(canReadWorkspaces(s)),
    /** HCP's archive: whoever may upload configurations (queue plans). */
    archive: (s) => allowOrDeny(canUploadConfiguration(s), canReadWorkspaces(s), s.actsAsPerson ? Errors.queueRunsNeeded : Errors.notAPersonForRuns),
  },
  'run-task': {
    read: (s) => allowOrHide(canReadRunTasks(s)),
    manage: (s) => allowOrDeny(canManageRunTasks(s), canReadRunTasks(s), Errors.manageRunTasksNeeded),
  },
  run: {
    read: (s) => allowOrHide(canReadRuns(s)),
    /** Apply, discard, cancel: `runs: apply` (a caller who may only queue plans is refused with why). */
    act: (s, run) =>
      allowOrDeny(canApplyRuns(s), canReadRuns(s), () =>
        !s.actsAsPerson
          ? Errors.notAPersonForRunActions()
          : canQueueRuns(s)
            ? Errors.runActionNeedsApplyAccess(run.action ?? 'act on')
            : Errors.runActionNeedsQueueRight(run.action ?? 'act on'),
      ),
    /** Commenting: whoever may queue runs (HCP gives comments with "queue plans"). */
    comment: (s) =>
      allowOrDeny(canQueueRuns(s), canReadRuns(s), () => (s.actsAsPerson ? Errors.runActionNeedsQueueRight('comment on') : Errors.notAPersonForRunActions())),
  },
  plan: {
    read: (s) => allowOrHide(canReadRuns(s)),
    /**
     * The agent protocol (claim, upload, report): whoever may queue runs in the workspace, i.e. the
     * pipeline. Hidden from everyone else, readers included (issue 16: "a token that may not queue runs gets 404").
     */
    execute: (s) => allowOrHide(canQueueRuns(s)),
  },
  apply: {
    read: (s) => allowOrHide(canReadRuns(s)),
    /** As the plan's, for whoever may apply runs in the workspace. */
    execute: (s) => allowOrHide(canApplyRuns(s)),
  },
  'task-stage': {
    read: (s) => allowOrHide(canReadRuns(s)),
    /** The override rule (shared/override-rule.ts) decides; this row only says which of its answers are 404 and 403. */
    override: (s, facts) => {
      const decision = decideOverride(overrideCallerOf(s), facts.stage ?? STAGE_HOLDING_NOTHING);
      if (decision.kind === 'hidden') return hide;
      if (decision.kind !== 'refused') return allow;
      return deny(OVERRIDE_REFUSALS[decision.reason](decision.required));
    },
  },
  'task-result': { read: (s) => allowOrHide(canReadRuns(s)) },
  /** Any member of the organization reads its policies and policy sets (HCP: they are the organization's rules). */
  policy: { read: () => allow, manage: policyWrite },
  'policy-set': { read: () => allow, manage: policyWrite },
  /** Policy results are read with the run they judged. */
  'policy-evaluation': { read: (s) => allowOrHide(canReadRuns(s)) },
  'policy-set-outcome': { read: (s) => allowOrHide(canReadRuns(s)) },
  /**
   * Agent pools: every member sees them (a workspace names one); owners and `manage-agent-pools` change them and
   * their agent tokens (HCP's "Manage agent pools").
   */
  'agent-pool': {
    read: (s) => allowOrHide(s.isMember),
    manage: (s) => allowOrDeny(canManageAgentPools(s), s.isMember, Errors.manageAgentPoolsNeeded),
  },
  /**
   * HCP: members see the access of the teams they can see on workspaces they can read; the workspace's admins
   * (and `manage-workspaces`) change it.
   */
  'team-workspace': {
    read: (s, facts) => allowOrHide(canReadWorkspaces(s) && canSeeTeam(s, facts.team)),
    manage: (s, facts) =>
      allowOrDeny(canAdministerWorkspace(s), canReadWorkspaces(s) && canSeeTeam(s, facts.team), Errors.manageTeamAccessNeeded),
  },
  /**
   * Projects (project-permissions.ts): the organization's `manage-projects` / `read-projects`, or the caller's
   * teams' access to this project. A project the caller cannot read is 404; a refused action on one it reads, 403.
   */
  project: {
    read: (s) => allowOrHide(canReadProject(s)),
    update: (s) => allowOrDeny(canUpdateProject(s), canReadProject(s), Errors.updateProjectNeeded),
    delete: (s) => allowOrDeny(canDeleteProject(s), canReadProject(s), Errors.deleteProjectNeeded),
    'manage-team-access': (s) => allowOrDeny(canManageProjectTeamAccess(s), canReadProject(s), Errors.manageProjectTeamAccessNeeded),
    /** A workspace created in it: `manage-workspaces`, or the project's `create` (maintain, admin). */
    'create-workspace': (s) => allowOrDeny(canCreateWorkspaceIn(s), canReadProject(s), Errors.createWorkspacesInProjectNeeded),
    /** A workspace moved out of or into it: `manage-workspaces`, or the project's `move` (admin). */
    'move-workspace': (s) => allowOrDeny(canMoveWorkspacesOf(s), canReadProject(s), Errors.moveWorkspacesNeeded),
  },
  /** HCP: members see the access of the teams they can see on projects they can read; `teams: manage` and `manage-projects` change it. */
  'team-project': {
    read: (s, facts) => allowOrHide(canReadProject(s) && canSeeTeam(s, facts.team)),
    manage: (s, facts) =>
      allowOrDeny(canManageProjectTeamAccess(s), canReadProject(s) && canSeeTeam(s, facts.team), Errors.manageProjectTeamAccessNeeded),
  },
} satisfies { [T in Thing]: Record<string, Rule<ThingFacts[T]>> };

export type ActionOn<T extends Thing> = keyof (typeof ACCESS_TABLE)[T] & string;

/**
 * Things outside any organization, decided by who the caller is alone. Same two rules: what is not
 * allowed is hidden.
 */
export const PERSONAL_TABLE = {
  /** Creating organizations: people (users, site admins), not tokens of an organization or a team. */
  'create-organization': (p: AnyPrincipal) => allowOrHide(p.kind === 'user' || p.kind === 'site-admin'),
  /** The same where TEAMSTAGE_ORGANIZATION_CREATORS=site-admin: a user sees the endpoint and is refused (403). */
  'create-organization-site-admin-only': (p: AnyPrincipal) =>
    p.kind === 'site-admin' ? allow : p.kind === 'user' ? deny(Errors.onlySiteAdminCreatesOrganizations()) : hide,
  /** Users and the site's settings. */
  'administer-site': (p: AnyPrincipal) => allowOrHide(p.kind === 'site-admin'),
  /** A user's own tokens (or any user's, for a site admin): listed and created through the user... */
  'manage-user-tokens': (p: AnyPrincipal, userId: string) => allowOrHide(p.kind === 'site-admin' || (p.kind === 'user' && p.userId === userId)),
  /** ...or one of them, by the token's id. */
  'manage-user-token': (p: AnyPrincipal, userId: string) => allowOrHide(p.kind === 'site-admin' || (p.kind === 'user' && p.userId === userId)),
  /** HCP's `PATCH /account/update`: a person changes their own username and email; a token that is not a person has no account to change. */
  'update-own-account': (p: AnyPrincipal) => allowOrHide(p.kind === 'user'),
  /** Only the invited user accepts an invitation. */
  'accept-invitation': (p: AnyPrincipal, userId: string) => allowOrHide(p.kind === 'user' && p.userId === userId),
  /**
   * The organization audit trail (`GET /organization/audit-trail`, which names no organization): only an
   * organization's audit trail token reads it, and only its own organization's. Every other token, the
   * organization token and owners' tokens included, finds nothing there (CONTRACT section 3).
   */
  'read-audit-trail': (p: AnyPrincipal) => allowOrHide(p.kind === 'audit-trail'),
} satisfies Record<string, (principal: AnyPrincipal, userId: string) => Verdict>;

export type PersonalAction = keyof typeof PERSONAL_TABLE;

export const PERSONAL_HIDDEN_AS: Record<PersonalAction, () => ApiError> = {
  'create-organization': Errors.onlyPeopleCreateOrganizations,
  'create-organization-site-admin-only': Errors.onlyPeopleCreateOrganizations,
  'administer-site': Errors.notFound,
  'manage-user-tokens': Errors.userNotFound,
  'manage-user-token': Errors.tokenNotFound,
  'accept-invitation': Errors.membershipNotFound,
  'update-own-account': Errors.userNotFound,
  'read-audit-trail': Errors.auditTrailNotFound,
};
