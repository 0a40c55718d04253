import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { StandingRepository } from './access/standing.repository.js';
import { Authenticator } from './identity/authenticate.js';
import { TokenUsage } from './identity/token-usage.js';
import { TokensRepository } from './identity/tokens.repository.js';
import { TokensService } from './identity/tokens.service.js';
import { UsersRepository } from './identity/users.repository.js';
import { UsersService } from './identity/users.service.js';
import { MembershipsRepository } from './organizations/memberships.repository.js';
import { MembershipsService } from './organizations/memberships.service.js';
import { OrganizationGate } from './access/organization-gate.js';
import { OrganizationsRepository } from './organizations/organizations.repository.js';
import { OrganizationsService } from './organizations/organizations.service.js';
import { TeamMembersService } from './teams/team-members.service.js';
import { TeamsRepository } from './teams/teams.repository.js';
import { TeamReadsWithCredential } from './teams/team-read-with-credential.js';
import { TeamsService } from './teams/teams.service.js';
import { TeamTokenAccess } from './teams/team-token-access.js';
import { MembershipTeams } from './teams/membership-teams.js';
import { createOwnersTeam } from './teams/owners-team.js';
import { Jobs, policyLane } from './jobs/jobs.js';
import { TaskResultTokens } from './delivery/access-tokens.js';
import { TaskCallbacks } from './delivery/callbacks.service.js';
import { DeliveryRepository } from './delivery/delivery.repository.js';
import { TaskDelivery } from './delivery/task-delivery.js';
import { TaskStageRunner } from './taskstages/task-stage-runner.js';
import { TaskStagesRepository } from './taskstages/task-stages.repository.js';
import { PolicyEvaluationsRepository } from './taskstages/policy-evaluations.repository.js';
import { newRunStagesWriter } from './taskstages/new-run-stages.js';
import { TaskStagesService } from './taskstages/task-stages.service.js';
import { ArtifactAccess } from './access/artifact-access.js';
import { NoopExecutor } from './runs/noop-executor.js';
import { PhasesService } from './runs/phases.service.js';
import { AgentPhasesService } from './runs/agent-phases.service.js';
import { PhaseLookup } from './runs/phase-lookup.js';
import { RunProgress } from './runs/run-progress.js';
import { RunTransitions } from './runs/run-transitions.js';
import { RunsRepository } from './runs/runs.repository.js';
import { PhaseUploadsRepository } from './runs/phase-uploads.repository.js';
import { PlanJsonChecker } from './runs/plan-json-checker.js';
import { PhaseLogsService } from './runs/phase-logs.service.js';
import { SigningKeysRepository } from './runs/signing-keys.repository.js';
import { RunsService } from './runs/runs.service.js';
import { RunForceActions } from './runs/run-force-actions.js';
import { RunRecorder, RunRecordRepository } from './record/run-record.repository.js';
import { RunRecordService } from './runs/run-record.service.js';
import { AuditTrailRepository } from './record/audit-trail.repository.js';
import { AuditTrailRecorder } from './record/audit-trail-recorder.js';
import { AuditTrailService } from './record/audit-trail.service.js';
import { TaskVerifier } from './runtasks/task-verification.js';
import { TaskDestinations } from './outbound/task-destinations.js';
import { TasksRepository } from './runtasks/tasks.repository.js';
import { TasksService } from './runtasks/tasks.service.js';
import { WorkspaceTasksRepository } from './runtasks/workspace-tasks.repository.js';
import { WorkspaceTasksService } from './runtasks/workspace-tasks.service.js';
import { ConfigurationVersionsRepository } from './workspaces/configuration-versions.repository.js';
import { ConfigurationVersionsService } from './workspaces/configuration-versions.service.js';
import { WorkspaceGate } from './access/workspace-gate.js';
import { WorkspaceGrantsRepository } from './access/workspace-grants.repository.js';
import { TeamAccessService } from './teamaccess/team-access.service.js';
import { TeamProjectsService } from './teamaccess/team-projects.service.js';
import { TeamProjectsRepository } from './teamaccess/team-projects.repository.js';
import { ProjectGate } from './access/project-gate.js';
import { ProjectGrantsRepository } from './access/project-grants.repository.js';
import { ProjectsRepository } from './projects/projects.repository.js';
import { ProjectsService } from './projects/projects.service.js';
import { createDefaultProject } from './projects/default-project.js';
import { TeamWorkspacesRepository } from './teamaccess/team-workspaces.repository.js';
import { AgentPoolsService } from './agentpools/agent-pools.service.js';
import { AgentPoolsRepository } from './agentpools/agent-pools.repository.js';
import { WorkspacesRepository } from './workspaces/workspaces.repository.js';
import { WorkspacesService } from './workspaces/workspaces.service.js';
import { WorkspaceTagsRepository } from './workspaces/workspace-tags.repository.js';
import { WorkspaceTagsService } from './workspaces/workspace-tags.service.js';
import { WorkspaceLockService } from './workspaces/workspace-lock.service.js';
import { queueNextJob } from './runs/run-queue.js';
import { RemoteStateConsumersRepository } from './workspaces/remote-state-consumers.repository.js';
import { RemoteStateConsumersService } from './workspaces/remote-state-consumers.service.js';
import { RunChangeSignals } from './db/run-change-signals.js';
import { RunWaits } from './runs/run-waits.js';
import { PoliciesRepository } from './policies/policies.repository.js';
import { PoliciesService } from './policies/policies.service.js';
import { PolicySetParametersService } from './policies/policy-set-parameters.js';
import { PolicySetVersionsRepository } from './policies/policy-set-versions.repository.js';
import { PolicySetVersionsService } from './policies/policy-set-versions.service.js';
import { policyEngineFor } from './policies/opa-engine.js';
import { PolicyEvaluationJob } from './taskstages/policy-evaluation-job.js';

/**
 * The object graph, wired by hand in one place: every repository gets the database, every service
 * gets what it calls. Background workers register a stop function so shutdown can release their claims.
 */
export function createServices(handle: DatabaseHandle, config: Config, log: FastifyBaseLogger) {
  const db = handle.db;
  const tokens = new TokensRepository(db);
  const users = new UsersRepository(db);
  const organizations = new OrganizationsRepository(db, handle.dialect);
  const memberships = new MembershipsRepository(db);
  const teams = new TeamsRepository(db, handle.dialect);
  const standings = new StandingRepository(db);
  const gate = new OrganizationGate(organizations, standings);
  // The organization audit trail: written by every domain in the transaction of its change, read with the audit trail token.
  const auditTrail = new AuditTrailRepository(db);
  const auditTrailRecorder = new AuditTrailRecorder(db, auditTrail);
  const teamsService = new TeamsService(teams, users, memberships, gate, auditTrailRecorder);
  const stopFunctions: Array<() => Promise<void>> = [];
  const jobs = new Jobs(
    handle,
    {
      concurrency: config.jobs.concurrency,
      workPerOrganization: config.jobs.perOrganization,
      delivery: { concurrency: config.jobs.deliveryConcurrency, perOrganization: config.jobs.deliveryPerOrganization },
      policy: policyLane(config.policies.concurrency, config.policies.perOrganization),
      pollMs: config.jobs.pollSeconds * 1000,
      leaseMs: config.jobs.leaseSeconds * 1000,
      databaseUrl: config.databaseUrl,
    },
    log,
  );

  // Workspaces, run tasks, configuration versions and runs.
  const authenticator = new Authenticator(tokens);
  const workspaces = new WorkspacesRepository(db);
  const tasks = new TasksRepository(db, handle.dialect);
  const workspaceTasks = new WorkspaceTasksRepository(db, handle.dialect);
  const configurationVersions = new ConfigurationVersionsRepository(db);
  const runs = new RunsRepository(db, handle.dialect, jobs, newRunStagesWriter);
  const policies = new PoliciesRepository(db);
  // The caller's teams' access to one workspace (issue 36) is read by the workspace gate alone.
  const workspaceGate = new WorkspaceGate(workspaces, gate, new WorkspaceGrantsRepository(db));
  const workspaceTags = new WorkspaceTagsRepository(db);
  // Projects (issue 36): the project gate attaches the caller's teams' access to one project.
  const projects = new ProjectsRepository(db);
  const projectGate = new ProjectGate(projects, gate, new ProjectGrantsRepository(db));
  // The task stage side (src/taskstages, src/delivery): stages, results, delivery, callbacks, overrides.
  const taskStages = new TaskStagesRepository(db, handle.dialect);
  const policyEvaluations = new PolicyEvaluationsRepository(db);
  const deliveries = new DeliveryRepository(db, handle.dialect);
  const taskAccessTokens = new TaskResultTokens(deliveries);
  // The record: run events and comments, written by every domain that moves a run or decides about it.
  const runRecords = new RunRecordRepository(db);
  const runRecorder = new RunRecorder(runRecords);
  const taskStageRunner: TaskStageRunner = new TaskStageRunner(db, taskStages, jobs, config.tasks, policyEvaluations, runRecorder);
  taskStageRunner.registerJobs();
  const artifactAccess = new ArtifactAccess(authenticator, workspaceGate, taskAccessTokens);
  const phaseUploads = new PhaseUploadsRepository(db);
  const runTransitions = new RunTransitions(runs, jobs, phaseUploads, taskStageRunner, runRecorder, configurationVersions, config.agent.claimTimeoutSeconds);
  const runProgress = new RunProgress(db, runs, configurationVersions, runTransitions, new NoopExecutor({ simulatedChanges: config.simulatedPlanChanges }), jobs, taskStageRunner, log);
  runProgress.registerJobs();
  // Agent execution mode (issue 16): the pipeline's side of a run's plan and apply.
  // Plan JSON uploads are checked in worker threads, at most two at once (plan-json-checker.ts).
  const planJsonChecker = new PlanJsonChecker({ maxDepth: config.agent.planJsonMaxDepth, maxValues: config.agent.planJsonMaxValues });
  stopFunctions.push(() => planJsonChecker.close());
  const agentPhasesService = new AgentPhasesService(db, runs, phaseUploads, planJsonChecker, runTransitions, jobs, config.agent, log);
  agentPhasesService.registerJobs();
  // Where run task requests may go: the operator's rules and this server's own listener.
  const taskDestinations = new TaskDestinations({ allow: config.tasks.urlAllow, deny: config.tasks.urlDeny }, [{ address: config.host, port: config.port }]);
  stopFunctions.push(() => taskDestinations.close());
  const taskDelivery = new TaskDelivery(db, deliveries, taskStageRunner, jobs, config, log, async () => handle.durable?.(), taskDestinations.dispatcher);
  taskDelivery.register();
  // Long polling for runs (`GET /runs/:id?wait=`): woken by the database's change signals, on every node.
  const runChangeSignals = new RunChangeSignals(handle, config.databaseUrl, log);
  runChangeSignals.start();
  stopFunctions.push(() => runChangeSignals.stop());
  const runWaits = new RunWaits(runChangeSignals, { maxSeconds: config.pipeline.runWaitMaxSeconds, perPrincipal: config.pipeline.runWaitsPerPrincipal });
  // Plans' and applies' signed log URLs (log-url-signature.ts), read without a token as HCP's are.
  const phaseLogs = new PhaseLogsService(runs, phaseUploads, new SigningKeysRepository(db), { baseUrl: config.baseUrl, ttlSeconds: config.agent.logUrlTtlSeconds, keyLifetimeSeconds: config.agent.logUrlKeyLifetimeSeconds }, log);
  const runsService = new RunsService(db, runs, workspaces, configurationVersions, workspaceTasks, workspaceGate, runTransitions, runProgress, policies, users, auditTrailRecorder, config.runLimits);
  // Policies (issue 29): the engine is the real OPA, found at start; without it no policy is taken.
  const policyEngine = policyEngineFor(config.policies);
  const policyEvaluationJob = new PolicyEvaluationJob(taskStageRunner, policies, runs, phaseUploads, workspaces, policyEngine, jobs, log);
  policyEvaluationJob.register();
  const policiesService = new PoliciesService(policies, gate, policyEngine, config.policies);
  const stageOverrides = taskStageRunner.overrides;
  const taskStagesService = new TaskStagesService(taskStages, workspaceGate, stageOverrides, policyEvaluations, auditTrailRecorder);
  const runRecordService = new RunRecordService(db, runRecords, runRecorder, runsService, config.runLimits);

  // Agent pools (issue 36): their tokens are managed by whoever manages the pool (identity asks through its port).
  const agentPools = new AgentPoolsRepository(db);
  const agentPoolsService = new AgentPoolsService(agentPools, tokens, gate, auditTrailRecorder);
  const tokensService = new TokensService(tokens, users, new TeamTokenAccess(teams), gate, auditTrailRecorder);
  tokensService.registerAgentTokens((principal, row) => agentPoolsService.manageableToken(principal, row));

  return {
    config,
    handle,
    log,
    phaseLogs,
    repositories: { tokens, users, organizations, memberships, teams, standings, workspaces, tasks, workspaceTasks, configurationVersions, runs, taskStages, deliveries, policies, policyEvaluations },
    gate,
    jobs,
    authenticator,
    // GET, PATCH and DELETE /teams/:id read the token and the team in one statement (issue 39).
    teamReadsWithCredential: new TeamReadsWithCredential((digest, teamId, now) => teams.readWithCredential(digest, teamId, now)),
    tokenUsage: new TokenUsage(tokens, (error) => log.warn({ err: error }, 'could not record when a token was last used')),
    usersService: new UsersService(users),
    organizationsService: new OrganizationsService(db, organizations, gate, standings, config.defaultFeatureSet, config.organizations, memberships, [createOwnersTeam(teams, auditTrailRecorder), createDefaultProject()],
      (trx, organizationName, mode) => workspaces.followDefaultExecutionMode(trx, organizationName, mode)),
    membershipsService: new MembershipsService(memberships, users, new MembershipTeams(teams, teamsService), gate, auditTrailRecorder),
    teamsService,
    teamMembersService: new TeamMembersService(teams, users, memberships, auditTrailRecorder),
    tokensService,
    agentPoolsService,
    workspaceGate,
    workspacesService: new WorkspacesService(workspaces, gate, workspaceGate, db, workspaceTags, agentPoolsService, { db, projects, gate: projectGate }),
    projectsService: new ProjectsService(db, projects, projectGate, agentPoolsService),
    teamProjectsService: new TeamProjectsService(new TeamProjectsRepository(db), teams, gate, projectGate, auditTrailRecorder),
    workspaceTagsService: new WorkspaceTagsService(db, workspaceTags),
    workspaceLockService: new WorkspaceLockService(db, handle.dialect, workspaces, (trx, workspaceId, organizationName) => jobs.enqueue(trx, queueNextJob(workspaceId, organizationName))),
    remoteStateConsumersService: new RemoteStateConsumersService(new RemoteStateConsumersRepository(db)),
    teamAccessService: new TeamAccessService(new TeamWorkspacesRepository(db), teams, gate, workspaceGate, auditTrailRecorder),
    tasksService: new TasksService(db, tasks, gate, new TaskVerifier(config.baseUrl, config.tasks.requestTimeoutSeconds, taskDestinations, log), workspaces, auditTrailRecorder),
    workspaceTasksService: new WorkspaceTasksService(db, workspaceTasks, tasks, workspaceGate, auditTrailRecorder),
    configurationVersionsService: new ConfigurationVersionsService(db, configurationVersions, workspaces, workspaceGate, artifactAccess, config.baseUrl, runsService),
    runProgress,
    /** The record's port: `runRecorder.record(trx, { runId, action, description, actor, comment, at })` (policy evaluations write theirs here). */
    runRecorder,
    runRecords,
    runRecordService,
    /** The audit trail's port: `auditTrailRecorder.record(trx, { organizationName, actor, resource })`. */
    auditTrailRecorder,
    auditTrailService: new AuditTrailService(auditTrail),
    taskStageRunner,
    stageOverrides,
    taskAccessTokens,
    runsService,
    runForceActions: new RunForceActions(db, runs, workspaces, runTransitions, runProgress, auditTrailRecorder),
    runWaits,
    taskStagesService,
    policyEngine,
    policiesService,
    policySetParametersService: new PolicySetParametersService(db, policiesService),
    policySetVersionsService: new PolicySetVersionsService(db, new PolicySetVersionsRepository(db), policiesService, config.baseUrl),
    taskDelivery,
    taskDestinations,
    taskCallbacks: new TaskCallbacks(taskStages, taskAccessTokens, taskStageRunner),
    phasesService: new PhasesService(runs, phaseUploads, workspaces, artifactAccess),
    phaseLookup: new PhaseLookup(runs, workspaces, workspaceGate),
    agentPhasesService,
    /** Workers first (they finish in-flight jobs with everything still up), then the rest in reverse order. */
    async stop() {
      await jobs.stop();
      for (const stop of stopFunctions.reverse()) await stop();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
