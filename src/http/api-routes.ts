import type { TypedApp } from './typed-app.js';
import { registerFindAndAuthorize } from './find-and-authorize.js';
import { createLookups } from './lookups.js';
import { registerStrictInclude } from './strict-include.js';
import { tokensRoutes } from './routes/tokens.routes.js';
import { usersRoutes } from './routes/users.routes.js';
import { membershipsRoutes } from './routes/memberships.routes.js';
import { organizationsRoutes } from './routes/organizations.routes.js';
import { phasesRoutes } from './routes/phases.routes.js';
import { runsRoutes } from './routes/runs.routes.js';
import { runRecordRoutes } from './routes/run-record.routes.js';
import { tasksRoutes } from './routes/tasks.routes.js';
import { workspaceTasksRoutes } from './routes/workspace-tasks.routes.js';
import { teamAccessRoutes } from './routes/team-access.routes.js';
import { agentPoolsRoutes } from './routes/agent-pools.routes.js';
import { projectsRoutes } from './routes/projects.routes.js';
import type { Services } from '../services.js';
import { teamMembersRoutes } from './routes/team-members.routes.js';
import { teamsRoutes } from './routes/teams.routes.js';
import { callbacksRoutes } from './routes/callbacks.routes.js';
import { taskStagesRoutes } from './routes/task-stages.routes.js';
import { configurationVersionsRoutes } from './routes/configuration-versions.routes.js';
import { workspacesRoutes } from './routes/workspaces.routes.js';
import { workspaceRelationshipsRoutes } from './routes/workspace-relationships.routes.js';
import { policiesRoutes } from './routes/policies.routes.js';
import { policySetParametersRoutes } from './routes/policy-set-parameters.routes.js';
import { policySetVersionsRoutes } from './routes/policy-set-versions.routes.js';
import { auditTrailRoutes } from './routes/audit-trail.routes.js';
import { inRequestScope } from '../record/request-scope.js';

/** Every /api/v2 route, by area. */
export async function registerApiRoutes(api: TypedApp, services: Services): Promise<void> {
  // Before every route: the lookup a route declares runs before its body is read.
  registerFindAndAuthorize(api, createLookups(services));
  // Then an `include` the route does not serve is a 400 (the contract), on every route alike.
  registerStrictInclude(api);
  // The handler and all it awaits know their request's id: the audit trail records it (record/request-scope.ts).
  api.addHook('preHandler', (request, _reply, done) => inRequestScope(request.id, done));
  await usersRoutes(api, services);
  await tokensRoutes(api, services);
  await organizationsRoutes(api, services);
  await membershipsRoutes(api, services);
  await teamsRoutes(api, services);
  await teamMembersRoutes(api, services);
  await workspacesRoutes(api, services);
  await workspaceRelationshipsRoutes(api, services);
  await tasksRoutes(api, services);
  await workspaceTasksRoutes(api, services);
  await teamAccessRoutes(api, services);
  await agentPoolsRoutes(api, services);
  await projectsRoutes(api, services);
  await configurationVersionsRoutes(api, services);
  await runsRoutes(api, services);
  await runRecordRoutes(api, services);
  await phasesRoutes(api, services);
  await policiesRoutes(api, services);
  await policySetParametersRoutes(api, services);
  await policySetVersionsRoutes(api, services);
  await taskStagesRoutes(api, services);
  await callbacksRoutes(api, services);
  await auditTrailRoutes(api, services);
}
