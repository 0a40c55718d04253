/**
 * The error catalogue. Services throw the named members of `Errors` (bottom of this file); the one error
 * handler (http/error-handler.ts) renders them as JSON:API error documents. An error carries its status as
 * plain data, so this layer knows nothing of HTTP (titles and documents are http/error-document.ts).
 */

/** Where in the request the problem is: a JSON pointer into the body, or a query parameter. */
export interface ErrorSource {
  pointer?: string;
  parameter?: string;
}

/** An error the server means to give: its status and detail as plain data; http/error-handler.ts renders it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly source?: ErrorSource,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export class BadRequest extends ApiError {
  constructor(detail: string, parameter?: string) {
    super(400, detail, parameter ? { parameter } : undefined);
  }
}

export class Unauthorized extends ApiError {
  constructor(detail = 'missing, invalid or expired token') {
    super(401, detail);
  }
}

/** Constructed only through `Errors` below: a 403 is the access verdict's to give, with a named reason. */
class Forbidden extends ApiError {
  constructor(detail = 'you are not allowed to do this') {
    super(403, detail);
  }
}

/** Also what "you may not see this" becomes, so hidden resources are indistinguishable from missing ones. */
class NotFound extends ApiError {
  constructor(detail = 'resource not found') {
    super(404, detail);
  }
}

export class Conflict extends ApiError {
  constructor(detail: string) {
    super(409, detail);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(detail = 'request body is larger than allowed') {
    super(413, detail);
  }
}

export class InvalidAttribute extends ApiError {
  constructor(pointer: string, detail: string) {
    super(422, detail, { pointer });
  }
}

/** A 422 about the request as a whole (a query parameter, an unparseable body). */
export class Unprocessable extends ApiError {
  constructor(detail: string, source?: ErrorSource) {
    super(422, detail, source);
  }
}

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
  policyEvaluationNotFound: () => new NotFound('policy evaluation not found'),
  policySetOutcomeNotFound: () => new NotFound('policy set outcome not found'),
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
  overrideNotAllowed: () => new Forbidden('you are not allowed to override this task stage'),
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
  planJsonTooDeep: (limit: number) => new Unprocessable(`the plan JSON nests arrays and objects deeper than the limit of ${limit} levels (TEAMSTAGE_PLAN_JSON_MAX_DEPTH)`),
  planJsonTooManyValues: (limit: number) => new Unprocessable(`the plan JSON holds more values than the limit of ${limit} (TEAMSTAGE_PLAN_JSON_MAX_VALUES)`),
  planJsonUncheckable: () => new Unprocessable('the plan JSON could not be checked within the memory a check may use'),
  invalidReport: (detail: string) => new InvalidAttribute('/status', detail),
  logNotFound: () => new NotFound('log not found'),
  unauthorized: (detail?: string) => new Unauthorized(detail),
  /** An audit trail token on any route but the audit trail's: it authenticates nothing else. */
  auditTrailTokenReadsOnlyAuditTrail: () => new Unauthorized('an audit trail token reads only the audit trail'),
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
  onlyOpaPolicies: (pointer: string) => new InvalidAttribute(pointer, 'only kind opa is supported: Teamstage evaluates policies with OPA, not Sentinel'),
  policyNameTaken: () => new InvalidAttribute('/data/attributes/name', 'Name has already been taken'),
  invalidPolicyAttribute: (pointer: string, detail: string) => new InvalidAttribute(pointer, detail),
  ownersTeamCannotBeDeleted: () => new InvalidAttribute('/data', 'the owners team cannot be deleted'),
  /** The standalone pipeline client names its version in every request; it must be the server's own. */
  pipelineClientVersionMismatch: (client: string, server: string, clientUrl: string) =>
    new BadRequest(`this teamstage pipeline client is version ${client} and the server ${server}: fetch the client again (curl -fsSo teamstage-pipeline.mjs ${clientUrl})`),
  /** runs/run-waits.ts: a principal's waiting run reads are bounded (TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL). */
  tooManyRunWaits: (limit: number) =>
    new ApiError(429, `this token already has ${limit} waiting run reads open (the limit); wait for one to answer, or read without ?wait`),
  invalidRunWait: () => new Unprocessable('wait must be a number of seconds greater than 0', { parameter: 'wait' }),
  pipelineClientNotBuilt: () => new NotFound('the pipeline client is not built in this installation; run `npm run build`'),
} as const;
