/**
 * The error catalogue. Services throw the named members of `Errors` (bottom of this file); the one error
 * handler (http/error-handler.ts) renders them as JSON:API error documents. An error carries its status as
 * plain data, so this layer knows nothing of HTTP (titles and documents are http/error-document.ts). The kinds
 * of error it builds (one per status) are error-kinds.ts.
 */
import type { PolicyKind } from '../shared/policy-kinds.js';
import { ApiError, BadRequest, Conflict, Forbidden, InvalidAttribute, NotFound, PayloadTooLarge, StatusError, Unauthorized, Unprocessable, type ErrorSource } from './error-kinds.js';

export { ApiError, type ErrorSource } from './error-kinds.js';

/**
 * Every error the server gives, by name. Details are byte-for-byte what clients and tests match on: change
 * one only together with them. Whether a refusal is a 404 or a 403 is not decided here but by the access
 * verdict (access/access-table.ts); a "not found" below is also what a hidden thing looks like.
 */
export const Errors = {
  // Missing, or hidden from the caller: indistinguishable on purpose.
  notFound: () => new NotFound('not found'),
  noRoute: (method: string, path: string) => new NotFound(`no route for ${method} ${path}`),
  organizationNotFound: (name: string) => new NotFound(`organization '${name}' not found`),
  onlyPeopleCreateOrganizations: () => new NotFound('only users and site admins create organizations'),
  membershipNotFound: () => new NotFound('organization membership not found'),
  userNotFound: () => new NotFound('user not found'),
  tokenNotFound: () => new NotFound('token not found'),
  teamNotFound: () => new NotFound('team not found'),
  workspaceNotFound: () => new NotFound('workspace not found'),
  configurationVersionNotFound: () => new NotFound('configuration version not found'),
  uploadUrlNotFound: () => new NotFound('upload URL not found'),
  configurationNotUploaded: () => new NotFound('the configuration version has not been uploaded yet'),
  runTaskNotFound: () => new NotFound('run task not found'),
  workspaceTaskNotFound: () => new NotFound('workspace task not found'),
  runNotFound: () => new NotFound('run not found'),
  planNotFound: () => new NotFound('plan not found'),
  applyNotFound: () => new NotFound('apply not found'),
  planHasNoJson: () => new NotFound('the plan has no JSON output yet'),
  taskStageNotFound: () => new NotFound('task stage not found'),
  taskResultNotFound: () => new NotFound('task result not found'),
  policyNotFound: () => new NotFound('policy not found'),
  policySetNotFound: () => new NotFound('policy set not found'),
  policySetParameterNotFound: () => new NotFound('policy set parameter not found'),
  policySetVersionNotFound: () => new NotFound('policy set version not found'),
  policyEvaluationNotFound: () => new NotFound('policy evaluation not found'),
  policySetOutcomeNotFound: () => new NotFound('policy set outcome not found'),
  teamAccessNotFound: () => new NotFound('team access not found'),
  agentPoolNotFound: () => new NotFound('agent pool not found'),
  projectNotFound: () => new NotFound('project not found'),
  teamProjectAccessNotFound: () => new NotFound('team project access not found'),
  /** What every token but an audit trail token finds at the organization audit trail (access-table.ts). */
  auditTrailNotFound: () => new NotFound("the organization audit trail is read with the organization's audit trail token (?token=audit-trails)"),
  policyNotUploaded: () => new NotFound('the policy has not been uploaded yet'),

  // Refused to a caller who may see the thing.
  editionLacksTeams: () => new Forbidden("the organization's edition does not include teams other than owners"),
  onlyOwnersChangeOwnersTeam: () => new Forbidden('only owners may change the owners team'),
  onlyOwnersRemoveOwners: () => new Forbidden('only owners may remove a member of the owners team from the organization'),
  lastOwnerCannotBeRemoved: () => new Forbidden('the last active member of the owners team cannot be removed'),
  lastOwnerCannotLeave: () => new Forbidden('the last active member of the owners team cannot leave the organization'),
  onlySiteAdminCreatesOrganizations: () => new Forbidden('only the site admin creates organizations here (TEAMSTAGE_ORGANIZATION_CREATORS=site-admin)'),
  notAPersonForOwnersToken: () => new Forbidden('the organization token, and the tokens it minted, cannot create tokens for the owners team'),
  manageWorkspacesNeeded: () => new Forbidden('managing workspaces needs the manage-workspaces permission'),
  createWorkspacesNeeded: () => new Forbidden('creating workspaces needs the manage-workspaces permission'),
  manageRunTasksNeeded: () => new Forbidden('managing run tasks needs the manage-run-tasks permission'),
  attachRunTasksNeeded: () => new Forbidden('attaching run tasks needs the manage-run-tasks permission'),
  notAPersonForRuns: () => new Forbidden('the organization token, and the tokens it minted, cannot create runs'),
  queueRunsNeeded: () => new Forbidden('queueing runs needs the manage-workspaces permission'),
  notAPersonForRunActions: () => new Forbidden('the organization token, and the tokens it minted, cannot act on runs'),
  runActionNeedsQueueRight: (action: string) => new Forbidden(`only people who may queue runs can ${action} them`),
  runActionNeedsApplyAccess: (action: string) => new Forbidden(`to ${action} runs, your team access to the workspace needs runs: apply`),
  manageAgentPoolsNeeded: () => new Forbidden('managing agent pools needs the manage-agent-pools permission'),
  manageProjectsNeeded: () => new Forbidden('creating projects needs the manage-projects permission'),
  updateProjectNeeded: () => new Forbidden("changing the project needs its settings access 'update' or the manage-projects permission"),
  deleteProjectNeeded: () => new Forbidden("deleting the project needs its settings access 'delete' or the manage-projects permission"),
  manageProjectTeamAccessNeeded: () => new Forbidden("managing the project's team access needs its teams access 'manage' or the manage-projects permission"),
  createWorkspacesInProjectNeeded: () => new Forbidden("creating workspaces in the project needs its workspace access 'create' or the manage-workspaces permission"),
  moveWorkspacesNeeded: () => new Forbidden("moving workspaces between projects needs workspace access 'move' on both projects or the manage-workspaces permission"),
  manageTeamAccessNeeded: () => new Forbidden("managing the workspace's team access needs admin access to it or the manage-workspaces permission"),
  overrideNotAllowed: () => new Forbidden('you are not allowed to override this task stage'),
  overrideNeedsPeople: (required: number) =>
    new Forbidden(`this task stage needs the approvals of ${required} people: only a user's own token counts, not a team or site token`),
  overrideOwnRun: () => new Forbidden("the run's author may not approve it: its workspace has prevent-self-approval and the stage needs more than one approval"),
  managePoliciesNeeded: () => new Forbidden('managing policies needs the manage-policies permission'),
  editionLacksPolicies: () => new Forbidden("the organization's edition does not include policies"),

  // Bad input and state.
  localExecutionQueuesNoRuns: () =>
    new InvalidAttribute('/data/relationships/workspace', "the workspace's execution-mode is local: Terraform runs elsewhere and Teamstage queues no runs"),
  /** Agent protocol (src/runs/agent-phases.service.ts): the pipeline asked for something the phase is not ready for. */
  notAgentMode: (what: 'plan' | 'apply') => new Conflict(`the ${what}'s run is not in agent execution mode: Teamstage carries it out itself`),
  phaseNotClaimable: (what: 'plan' | 'apply', why: string) => new Conflict(`the ${what} cannot be claimed now: ${why}`),
  phaseBusy: (what: 'plan' | 'apply') => new Conflict(`the ${what}'s run is changing right now; try again`),
  phaseNotRunning: (what: 'plan' | 'apply', status: string) => new Conflict(`the ${what} is ${status}, not running: claim it first`),
  reportConflicts: (what: 'plan' | 'apply', recorded: string) => new Conflict(`the ${what} was already reported ${recorded}; a different report is refused`),
  phaseEndedWithoutReport: (what: 'plan' | 'apply', status: string, runStatus: string) =>
    new Conflict(`the ${what} is ${status} (the run is ${runStatus}): it takes no report`),
  planJsonMissing: () => new InvalidAttribute('/status', 'a finished plan needs its plan JSON: upload it (PUT /plans/:id/json-output) before reporting'),
  invalidPlanJson: (problem: string) => new Unprocessable(problem),
  uploadTooLarge: (what: string, limit: number) => new Unprocessable(`the ${what} is larger than the limit of ${limit} bytes`),
  bodyStalled: (seconds: number) => new StatusError(408, `the request body stalled: nothing arrived for ${seconds} s (TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT)`),
  jsonTooDeep: (limit: number) => new Unprocessable(`request body nests arrays and objects deeper than ${limit} levels`),
  planJsonTooDeep: (limit: number) => new Unprocessable(`the plan JSON nests arrays and objects deeper than the limit of ${limit} levels (TEAMSTAGE_PLAN_JSON_MAX_DEPTH)`),
  planJsonTooManyValues: (limit: number) => new Unprocessable(`the plan JSON holds more values than the limit of ${limit} (TEAMSTAGE_PLAN_JSON_MAX_VALUES)`),
  planJsonUncheckable: () => new Unprocessable('the plan JSON could not be checked within the memory a check may use'),
  invalidReport: (detail: string) => new InvalidAttribute('/status', detail),
  logNotFound: () => new NotFound('log not found'),
  tokenInvalid: () => new Unauthorized(),
  tokenExpired: () => new Unauthorized('token has expired'),
  taskResultTokenInvalid: () => new Unauthorized('invalid access token for this task result'),
  runEventNotFound: () => new NotFound('run event not found'),
  requiredApprovalsInvalid: (max: number) => new InvalidAttribute('/data/attributes/required-approvals', `required-approvals must be a whole number from 1 to ${max}`),
  commentBodyRequired: () => new InvalidAttribute('/data/attributes/body', 'body is required'),
  commentBodyTooLong: (max: number) => new InvalidAttribute('/data/attributes/body', `body must be at most ${max} characters`),
  /** TEAMSTAGE_COMMENTS_PER_RUN: the run's record is full; waiting does not change that. */
  tooManyComments: (limit: number) => new Unprocessable(`this run has ${limit} comments, the most a run may have (TEAMSTAGE_COMMENTS_PER_RUN)`),
  commentNotFound: () => new NotFound('comment not found'),
  alreadyApproved: () => new Conflict('you have already overridden this task stage; it needs the override of another person'),
  /** An audit trail token on any route but the audit trail's: it authenticates nothing else. */
  auditTrailTokenReadsOnlyAuditTrail: () => new Unauthorized('an audit trail token reads only the audit trail'),
  agentTokenDrivesOnlyPipelines: () => new Unauthorized("an agent token does only the pipeline's part of its pool's workspaces' runs"),
  tokenExpiryNotATimestamp: () => new InvalidAttribute('/data/attributes/expired-at', 'expired-at must be an ISO 8601 timestamp'),
  tokenExpiryInThePast: () => new InvalidAttribute('/data/attributes/expired-at', 'expired-at must be in the future'),
  unknownTeamTokenSort: (sort: string) =>
    new BadRequest(`cannot sort team tokens by '${sort}': use created-at, expired-at or last-used-at, with - before it for descending`, 'sort'),
  unknownTokenType: () => new BadRequest("the token parameter must be 'organization' or 'audit-trails'", 'token'),
  organizationsPerUserReached: (limit: number) =>
    new InvalidAttribute('/data', `you have created ${limit} organizations, the most one user may have (TEAMSTAGE_ORGANIZATIONS_PER_USER); delete one first`),
  /** Policies (src/policies): the server cannot judge policies, so it takes none. */
  noPolicyEngine: (why: string) => new Unprocessable(`this server has no policy engine (OPA), so it takes no policies: ${why}`),
  policyDoesNotCompile: (message: string) => new Unprocessable(`the policy does not compile: ${message}`),
  /** Issue 34: policies reach nothing outside the plan (policies/opa-capabilities.ts). */
  policyUsesUnavailableBuiltin: (builtin: string) =>
    new Unprocessable(`the policy calls ${builtin}, which policies cannot use on this server: a policy sees the plan and the run, never the network, the clock or chance`),
  policyTooCostlyToCompile: (why: string) => new Unprocessable(`the policy was refused: ${why}; split it into smaller policies`),
  policyTooLarge: (limit: number) => new Unprocessable(`the policy is larger than the limit of ${limit} bytes (TEAMSTAGE_POLICY_MAX_BYTES)`),
  policiesPerOrganizationReached: (limit: number) =>
    new InvalidAttribute('/data', `the organization has ${limit} policies, the most it may have (TEAMSTAGE_POLICIES_PER_ORGANIZATION); delete one first`),
  // A policy's, a policy set's or a parameter's attributes (policies/policy-input.ts; its name: invalidName, nameTaken).
  unknownPolicyKind: (kind: string) => new InvalidAttribute('/data/attributes/kind', `the kind is opa or sentinel, not ${JSON.stringify(kind)}`),
  policyEnforcementGivenTwice: () => new InvalidAttribute('/data/attributes/enforce', 'give enforcement-level or enforce, not both'),
  policyEnforcementLevelRequired: (levels: readonly string[]) =>
    new InvalidAttribute('/data/attributes/enforcement-level', `the enforcement level is required: ${levels.join(', ')}`),
  /** `pointer`: `enforcement-level`, or `enforce/0/mode` when the level came in the older form. */
  invalidPolicyEnforcementLevel: (pointer: string, kind: PolicyKind, levels: readonly string[], level: string) =>
    new InvalidAttribute(pointer, `${kind === 'opa' ? 'an OPA' : 'a Sentinel'} policy's enforcement level is ${levels.join(' or ')}, not ${JSON.stringify(level)}`),
  policyQueryRequired: () => new InvalidAttribute('/data/attributes/query', 'an OPA policy needs its query (e.g. data.terraform.deny)'),
  policyQueryEmpty: () => new InvalidAttribute('/data/attributes/query', 'the query cannot be empty'),
  policySetPolicyNotFound: (id: string) => new InvalidAttribute('/data/relationships/policies', `policy ${id} not found`),
  policySetPolicyOfOtherKind: (id: string, policyKind: string, setKind: string) =>
    new InvalidAttribute('/data/relationships/policies', `policy ${id} is of kind ${policyKind}; a ${setKind} policy set takes only ${setKind} policies`),
  policySetWorkspaceNotFound: (id: string) => new InvalidAttribute('/data/relationships/workspaces', `workspace ${id} not found`),
  policySetParameterKeyRequired: () => new InvalidAttribute('/data/attributes/key', 'the key is required'),
  policySetParameterKeyEmpty: () => new InvalidAttribute('/data/attributes/key', 'the key cannot be empty'),
  policySetParameterKeyTaken: () => new InvalidAttribute('/data/attributes/key', 'Key has already been taken'),
  policySetParameterCategory: () => new InvalidAttribute('/data/attributes/category', 'the category of a policy set parameter is policy-set'),
  policySetParameterStaysSensitive: () => new InvalidAttribute('/data/attributes/sensitive', 'a sensitive parameter cannot be made non-sensitive'),
  /** Policy set versions (issue 37): the upload URL takes one archive; an invalid one errors the version with why. */
  policySetVersionAlreadyUploaded: () => new Conflict('this policy set version was already uploaded; create a new version'),
  policySetVersionErrored: (why: string) => new Unprocessable(`the policy set version errored: ${why}`),
  ownersTeamCannotBeDeleted: () => new InvalidAttribute('/data', 'the owners team cannot be deleted'),
  /** The standalone pipeline client names its version in every request; it must be the server's own. */
  pipelineClientVersionMismatch: (client: string, server: string, clientUrl: string) =>
    new BadRequest(`this teamstage pipeline client is version ${client} and the server ${server}: fetch the client again (curl -fsSo teamstage-pipeline.mjs ${clientUrl})`),
  /** runs/run-waits.ts: a principal's waiting run reads are bounded (TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL). */
  /** TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE: the workspace's queue is full until a run ahead finishes. */
  tooManyPendingRuns: (limit: number) =>
    new StatusError(429, `this workspace already has ${limit} runs pending, the most its queue holds (TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE); queue this run once one has started, or cancel pending ones`, { 'retry-after': '60' }),
  tooManyRunWaits: (limit: number) =>
    new StatusError(429, `this token already has ${limit} waiting run reads open (the limit); wait for one to answer, or read without ?wait`),
  invalidBooleanFilter: (parameter: string) => new Unprocessable(`${parameter} must be true or false`, { parameter }),
  invalidAuditTrailSince: () =>
    new Unprocessable('since must be an ISO 8601 time with its zone, such as 2026-01-02T03:04:05.000Z', { parameter: 'since' }),
  /** Teamstage's audit trail filters (docs/audit-trail.md): a type the trail never records, or an actor name no account could have. */
  invalidAuditTrailType: (known: string) =>
    new Unprocessable(`filter[type] must be one or more of ${known} (comma-separated)`, { parameter: 'filter[type]' }),
  invalidAuditTrailActor: () =>
    new Unprocessable('filter[actor] must be an actor name or id of at most 255 characters (a username, api-team_…, api-org_…, site-admin, or user-…)', { parameter: 'filter[actor]' }),
  invalidRunWait: () => new Unprocessable('wait must be a number of seconds greater than 0', { parameter: 'wait' }),
  pipelineClientNotBuilt: () => new NotFound('the pipeline client is not built in this installation; run `npm run build`'),
  consoleNotBuilt: () => new NotFound('the web console is not built in this installation; run `npm run build`'),

  // Names and the rules of attributes (the problem is the rule's own words: core/team-name.ts, run-task-rules.ts …).
  invalidName: (pointer: string, problem: string) => new InvalidAttribute(pointer, problem),
  nameTaken: (pointer = '/data/attributes/name') => new InvalidAttribute(pointer, 'Name has already been taken'),
  /** A team access's attribute (HCP's sentences: "Runs is read-only when access level is 'read'; …"). */
  invalidTeamAccess: (attribute: string, detail: string) => new InvalidAttribute(`/data/attributes/${attribute}`, detail),
  teamAccessRelationshipMissing: (relationship: 'team' | 'workspace') => new InvalidAttribute(`/data/relationships/${relationship}`, `${relationship} is required`),
  teamAccessTaken: () => new InvalidAttribute('/data/relationships/team', 'Team has already been taken'),
  agentPoolNameRequired: () => new InvalidAttribute('/data/attributes/name', 'name is required'),
  agentPoolNotAllowed: () =>
    new InvalidAttribute('/data/relationships/agent-pool', "the agent pool is not organization-scoped and does not list this workspace among its allowed workspaces"),
  agentPoolUnknown: () => new InvalidAttribute('/data/attributes/agent-pool-id', 'agent pool not found in this organization'),
  agentPoolInUse: (workspaces: number) =>
    new Conflict(`the agent pool is used by ${workspaces} workspace${workspaces === 1 ? '' : 's'}: move ${workspaces === 1 ? 'it' : 'them'} to another pool or execution mode first`),
  agentPoolOnlyInAgentMode: () => new InvalidAttribute('/data/attributes/agent-pool-id', 'an agent pool is set only with execution-mode agent'),
  /** A project's or a team project access's attribute (HCP's sentences where go-tfe looks for them). */
  invalidProjectAttribute: (attribute: string, detail: string) => new InvalidAttribute(`/data/attributes/${attribute}`, detail),
  projectHasWorkspaces: (count: number) => new Conflict(`the project contains ${count} workspace(s): move or delete them before deleting the project`),
  defaultProjectCannotBeDeleted: () => new Conflict("the organization's default project cannot be deleted"),
  projectUnknown: () => new InvalidAttribute('/data/relationships/project', 'project not found in this organization'),
  invalidProjectAutoDestroyDuration: () =>
    new InvalidAttribute('/data/attributes/auto-destroy-activity-duration', "Auto destroy activity duration has an incorrect format, we expect up to 4 numeric digits and 1 unit ('d' or 'h')"),
  teamProjectAccessRelationshipMissing: (relationship: 'team' | 'project') => new InvalidAttribute(`/data/relationships/${relationship}`, `${relationship} is required`),
  teamProjectAccessFilterMissing: () => new Unprocessable('filter[project][id] is required', { parameter: 'filter[project][id]' }),
  teamAccessFilterMissing: () => new Unprocessable('filter[workspace][id] or filter[team][id] is required', { parameter: 'filter[workspace][id]' }),
  invalidUsername: (problem: string) => new InvalidAttribute('/data/attributes/username', problem.replace(/^name/, 'username')),
  reservedUsername: (detail: string) => new InvalidAttribute('/data/attributes/username', detail),
  userAttributeTaken: (attribute: 'username' | 'email') =>
    new InvalidAttribute(`/data/attributes/${attribute}`, `${attribute === 'username' ? 'Username' : 'Email'} has already been taken`),
  invalidEmail: (pointer: string) => new InvalidAttribute(pointer, 'email is not a valid address'),
  tokenDescriptionTooLong: () => new InvalidAttribute('/data/attributes/description', 'description must be at most 255 characters'),
  tokenDescriptionTaken: () => new InvalidAttribute('/data/attributes/description', 'Description has already been taken for this team'),
  organizationAccessRuleBroken: (key: string, detail: string) => new InvalidAttribute(`/data/attributes/organization-access/${key}`, detail),
  ownersTeamCannotBeRenamed: () => new InvalidAttribute('/data/attributes/name', 'the owners team cannot be renamed'),
  ownersTeamAccessFixed: (key: string) => new InvalidAttribute(`/data/attributes/organization-access/${key}`, "the owners team's organization access cannot be changed"),
  notAnActiveMember: (index: number, username: string) => new InvalidAttribute(`/data/${index}/id`, `user '${username}' is not an active member of the organization`),
  membershipNotInOrganization: (index: number, id: string) =>
    new InvalidAttribute(`/data/${index}/id`, `organization membership '${id}' not found in this organization`),
  inviteTeamNotFound: (index: number, teamId: string) =>
    new InvalidAttribute(`/data/relationships/teams/data/${index}/id`, `team '${teamId}' not found in this organization`),
  alreadyAMember: () => new InvalidAttribute('/data/attributes/email', 'this user is already a member of the organization'),
  invalidMembershipStatusFilter: () => new InvalidAttribute('filter[status]', "filter[status] must be 'invited' or 'active'"),
  organizationRenameUnsupported: () => new InvalidAttribute('/data/attributes/name', 'renaming an organization is not supported'),
  unknownFeatureSet: (id: string) => new Unprocessable(`feature set '${id}' does not exist`, { pointer: '/data/relationships/feature-set/data/id' }),
  invalidExecutionMode: (modes: readonly string[], pointer = '/data/attributes/execution-mode') =>
    new InvalidAttribute(pointer, `${pointer.split('/').at(-1)} must be one of ${modes.join(', ')}`),
  invalidArchive: (problem: string) => new Unprocessable(problem),
  /** HCP's words (go-tfe matches "transition not allowed" and "because it is current"). */
  configurationArchiveRefused: (why: string) => new Conflict(`transition not allowed: configuration could not be archived because ${why}`),
  configurationAlreadyUsed: () => new Conflict('a run was made from this configuration version: its archive can no longer be replaced'),
  runWorkspaceRequired: () => new InvalidAttribute('/data/relationships/workspace', 'the workspace to run is required'),
  noUploadedConfiguration: () =>
    new InvalidAttribute('/data/relationships/configuration-version', 'the workspace has no uploaded configuration version; upload one first'),
  configurationVersionNotInWorkspace: (id: string) =>
    new InvalidAttribute('/data/relationships/configuration-version/data/id', `configuration version '${id}' not found in this workspace`),
  configurationVersionNotUploaded: () =>
    new InvalidAttribute('/data/relationships/configuration-version/data/id', 'the configuration version has not been uploaded yet'),
  runActionRefused: (verb: string, why: string) => new Conflict(`the run cannot be ${verb}: ${why}`),
  runBusy: () => new Conflict('the run is changing right now; try again'),
  taskStageBusy: () => new Conflict('the task stage is being overridden by others right now; try again'),
  logUrlNotFound: () => new NotFound('log not found, or its URL has expired: read the plan or apply again for a fresh log-read-url'),
  invalidLogRange: (parameter: string) => new Unprocessable(`${parameter} must be a whole number of bytes, 0 or more`, { parameter }),
  invalidRunListFilter: (parameter: string, value: string, allowed: readonly string[]) =>
    new Unprocessable(`${parameter}: '${value}' is not one of ${allowed.join(', ')}`, { parameter }),

  // Run tasks, their attachments, stages and results.
  invalidTaskAttribute: (attribute: string, problem: string) => new InvalidAttribute(`/data/attributes/${attribute}`, problem),
  taskUrlNotAllowed: (reason: string) => new InvalidAttribute('/data/attributes/url', `url is not allowed: ${reason}; the operator decides where run tasks may point`),
  taskUrlNotVerified: (timeoutSeconds: number) =>
    new InvalidAttribute(
      '/data/attributes/url',
      `the run task at this URL could not be verified: it must answer 200 to a signed verification request within ${timeoutSeconds} s (the server log has the details)`,
    ),
  runTaskBusy: () => new Conflict('the run task is changing right now; try again'),
  runTaskAttached: (workspaces: number) =>
    new InvalidAttribute('/data', `the run task is attached to ${workspaces} workspace${workspaces === 1 ? '' : 's'}; detach it before deleting it`),
  enforcementLevelRequired: () => new InvalidAttribute('/data/attributes/enforcement-level', 'enforcement-level is required'),
  runTaskToAttachRequired: () => new InvalidAttribute('/data/relationships/task', 'the run task to attach is required'),
  runTaskToAttachNotFound: (taskId: string) => new InvalidAttribute('/data/relationships/task/data/id', `run task '${taskId}' not found`),
  runTaskAlreadyAttached: () => new InvalidAttribute('/data/relationships/task/data/id', 'the run task is already attached to this workspace'),
  workspaceTaskLimit: (problem: string) => new InvalidAttribute('/data/relationships/task/data/id', problem),
  stageNotAwaitingOverride: (status: string) => new Conflict(`the task stage is ${status}, not awaiting_override`),
  taskResultFinal: (status: string) => new Conflict(`the task result is already ${status}`),
  invalidReportedLink: (pointer: string, problem: string) => new InvalidAttribute(pointer, problem),

  // The HTTP layer's own refusals.
  invalidInclude: (name: string, offered: string) => new BadRequest(`'${name}' is not a valid include parameter here; allowed: ${offered}`, 'include'),
  invalidPageSize: (max: number) => new Unprocessable(`page[size] must be between 1 and ${max}`, { parameter: 'page[size]' }),
  invalidPageNumber: () => new Unprocessable('page[number] must be a positive integer', { parameter: 'page[number]' }),
  bodyEndedEarly: () => new BadRequest('the request body ended before it was complete'),
  bodyTooLarge: (limitBytes?: number) =>
    new PayloadTooLarge(limitBytes === undefined ? undefined : `request body is larger than allowed (${Math.round(limitBytes / (1024 * 1024))} MiB)`),
  rateLimited: (perSecond: number, retrySeconds: number) =>
    new StatusError(429, `rate limit of ${perSecond} requests per second exceeded; retry in ${retrySeconds} s`),
  authFailuresOverBudget: (perMinute: number, retrySeconds: string) =>
    new StatusError(429, `too many failed authentication attempts from this address (limit ${perMinute} per minute); retry in ${retrySeconds} s`, {
      'retry-after': retrySeconds,
      'x-ratelimit-reset': retrySeconds,
    }),
  /** A failed check of a route's schema (Ajv's words), at the pointer into the body or the query parameter. */
  schemaViolation: (detail: string, source: ErrorSource) => new Unprocessable(detail, source),
  bodyNotJson: (detail = 'request body is not valid JSON') => new Unprocessable(detail, { pointer: '' }),
  unsupportedMediaType: () => new StatusError(415, 'send Content-Type: application/vnd.api+json'),
  /** A client error Fastify or node:http classified before any route ran (bad URL encoding, an over-long parameter …). */
  refusedBeforeRouting: (status: number, detail: string) => new StatusError(status, detail),
  storageRefused: (problem: string) => new StatusError(503, `the database refused this request: ${problem}; try again later`),
  /** A bug of ours: the cause is in the server log, never in the answer. */
  internal: () => new StatusError(500, 'internal error; the server logged the cause'),
  // node:http's own refusals, answered as JSON:API (http/http-layer-answers.ts).
  hostHeaderMissing: () => new StatusError(400, 'an HTTP/1.1 request must have a Host header'),
  unsupportedExpectation: () => new StatusError(417, 'the only expectation supported is 100-continue'),
  requestTimedOut: () => new StatusError(408, 'the request was not received in the time allowed'),
  requestLineTooLong: (kib: number) => new StatusError(414, `the request line is longer than ${kib} KiB`),
  headersTooLarge: (kib: number) => new StatusError(431, `the request line and headers are longer than ${kib} KiB`),
  chunkExtensionsTooLarge: () => new StatusError(413, 'the chunk extensions of the body are too large'),
  notHttp: () => new StatusError(400, 'the request is not valid HTTP/1.1'),
  shuttingDown: () => new StatusError(503, 'the server is shutting down; send the request again (to another node)'),
  databaseUnreachable: () => new StatusError(503, 'database is not reachable'),
  writesRefused: (detail: string) => new StatusError(503, detail),
  // Workspaces and organizations as HCP serves them (issue 37).
  terraformVersionNeedsPlanOnly: () =>
    new InvalidAttribute('/data/attributes/terraform-version', 'setting terraform-version is only valid when plan-only is set to true'),
  invalidTagName: (pointer: string) =>
    new InvalidAttribute(pointer, 'a tag name has 1 to 255 characters: letters, numbers, colons, hyphens and underscores'),
  tagNotFound: (pointer: string) => new InvalidAttribute(pointer, 'no tag of this organization has this id'),
  noTagsGiven: () => new InvalidAttribute('/data', 'name at least one tag'),
  consumerNotFound: (pointer: string) => new InvalidAttribute(pointer, 'no workspace of this organization has this id'),
  invalidWorkspaceSort: (offered: string) => new BadRequest(`cannot sort workspaces so: use ${offered}`, 'sort'),
  invalidAutoDestroyAt: () => new InvalidAttribute('/data/attributes/auto-destroy-at', 'auto-destroy-at must be an ISO 8601 time or null'),
  workspaceAlreadyLocked: () => new Conflict('Unable to lock workspace. The workspace is already locked.'),
  workspaceLockedCannotDelete: () => new Conflict('The workspace is locked: unlock it before a safe delete.'),
  workspaceNotLocked: () => new Conflict('Unable to unlock workspace. The workspace is not locked.'),
  /** go-tfe tells the holders apart by "is locked by Run|Team|User". */
  workspaceLockedByOther: (holder: string) => new Conflict(`Unable to unlock workspace. The workspace is locked by ${holder}; whoever may manage it can force-unlock it.`),
} as const;
