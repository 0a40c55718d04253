import type { Principal } from '../core/principal.js';
import type { Services } from '../services.js';
import type { TeamReadAhead } from '../teams/team-read-with-credential.js';

/** What a lookup reads of the request (find-and-authorize.ts makes it): nothing of the body. */
export interface LookupRequest {
  /** A path parameter the route's schema requires (a lookup is declared only by routes that have it). */
  param(name: string): string;
  /** The authenticated caller (401 on a public route). */
  caller(): Principal;
  /** The bearer token as sent, for public routes that authenticate with a token of their own. */
  bearerToken(): string | undefined;
  /** The team's read taken along with the token by authentication (team-read-with-credential.ts), if it was. */
  teamReadAhead(): TeamReadAhead | undefined;
}

/**
 * Every lookup a route can declare (`config: { lookup: '<name>' }`): the one way each resource is found
 * for a request, with the proof of what the caller may do with it. Each is its service's own method;
 * this table only says where its ids come from. A new resource adds one line here (and its row in
 * the access table), nothing else.
 */
export function createLookups(services: Services) {
  const { gate, teamsService, tokensService, membershipsService, organizationsService, workspacesService, tasksService } = services;
  const { workspaceTasksService, configurationVersionsService, runsService, phaseLookup, taskStagesService, taskCallbacks, runRecordService } = services;
  const { policiesService, policySetVersionsService, teamAccessService, agentPoolsService, projectsService, teamProjectsService } = services;
  return {
    organization: (request) => gate.enter(request.caller(), request.param('organization_name')),
    'subscribed-organization': (request) => organizationsService.forSiteAdmin(request.caller(), request.param('organization_name')),
    user: (request) => tokensService.tokenOwner(request.caller(), request.param('user_id')),
    token: (request) => tokensService.manageableToken(request.caller(), request.param('token_id')),
    membership: (request) => membershipsService.visibleMembership(request.caller(), request.param('membership_id')),
    invitation: (request) => membershipsService.invitation(request.caller(), request.param('membership_id')),
    team: (request) => teamsService.visibleTeam(request.caller(), request.param('team_id'), request.teamReadAhead()),
    workspace: (request) => workspacesService.visible(request.caller(), request.param('workspace_id')),
    'workspace-by-name': (request) =>
      workspacesService.visibleByName(request.caller(), request.param('organization_name'), request.param('workspace_name')),
    'agent-pool': (request) => agentPoolsService.visible(request.caller(), request.param('agent_pool_id')),
    'team-access': (request) => teamAccessService.visible(request.caller(), request.param('team_access_id')),
    project: (request) => projectsService.visible(request.caller(), request.param('project_id')),
    'team-project-access': (request) => teamProjectsService.visible(request.caller(), request.param('team_project_access_id')),
    task: (request) => tasksService.visibleTask(request.caller(), request.param('task_id')),
    'workspace-task': (request) =>
      workspaceTasksService.visible(request.caller(), request.param('workspace_id'), request.param('workspace_task_id')),
    'configuration-version': (request) => configurationVersionsService.visible(request.caller(), request.param('configuration_version_id')),
    'configuration-upload': (request) => configurationVersionsService.authorizeUpload(request.param('upload_token')),
    run: (request) => runsService.visibleRun(request.caller(), request.param('run_id')),
    'run-event': (request) => runRecordService.visibleEvent(request.caller(), request.param('run_event_id')),
    comment: (request) => runRecordService.visibleComment(request.caller(), request.param('comment_id')),
    plan: (request) => phaseLookup.visible(request.caller(), 'plan', request.param('plan_id')),
    apply: (request) => phaseLookup.visible(request.caller(), 'apply', request.param('apply_id')),
    'plan-execution': (request) => phaseLookup.drivable(request.caller(), 'plan', request.param('plan_id')),
    'apply-execution': (request) => phaseLookup.drivable(request.caller(), 'apply', request.param('apply_id')),
    'task-stage': (request) => taskStagesService.visibleStage(request.caller(), request.param('task_stage_id')),
    'task-result': (request) => taskStagesService.visibleResult(request.caller(), request.param('task_result_id')),
    policy: (request) => policiesService.visiblePolicy(request.caller(), request.param('policy_id')),
    // The upload's: the caller must be able to change the policy before a byte of the Rego is read.
    'writable-policy': (request) => policiesService.writablePolicy(request.caller(), request.param('policy_id')),
    'policy-set': (request) => policiesService.visibleSet(request.caller(), request.param('policy_set_id')),
    'policy-set-version': (request) => policySetVersionsService.visible(request.caller(), request.param('policy_set_version_id')),
    // Public: the upload URL's token is the credential, checked before a byte of the archive is read.
    'policy-set-version-upload': (request) => policySetVersionsService.authorizeUpload(request.param('upload_token')),
    'policy-evaluation': (request) => taskStagesService.visibleEvaluation(request.caller(), request.param('policy_evaluation_id')),
    'policy-set-outcome': (request) => taskStagesService.visibleSetOutcome(request.caller(), request.param('policy_set_outcome_id')),
    // Public: the run task's access token for this result, not an API token.
    'task-result-callback': (request) => taskCallbacks.authorize(request.bearerToken(), request.param('task_result_id')),
  } satisfies Record<string, (request: LookupRequest) => Promise<unknown>>;
}

export type Lookups = ReturnType<typeof createLookups>;
export type LookupName = keyof Lookups;
/** What a lookup hands the handler: the proof of what the caller may do with the thing found. */
export type ProofOf<N extends LookupName> = Awaited<ReturnType<Lookups[N]>>;
