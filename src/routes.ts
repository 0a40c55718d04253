import type { FastifyInstance } from 'fastify';
import { tokensRoutes } from './identity/tokens.routes.js';
import { usersRoutes } from './identity/users.routes.js';
import { membershipsRoutes } from './organizations/memberships.routes.js';
import { organizationsRoutes } from './organizations/organizations.routes.js';
import { phasesRoutes } from './runs/phases.routes.js';
import { runsRoutes } from './runs/runs.routes.js';
import { tasksRoutes } from './runtasks/tasks.routes.js';
import { workspaceTasksRoutes } from './runtasks/workspace-tasks.routes.js';
import type { Services } from './services.js';
import { teamMembersRoutes } from './teams/team-members.routes.js';
import { teamsRoutes } from './teams/teams.routes.js';
import { callbacksRoutes } from './delivery/callbacks.routes.js';
import { taskStagesRoutes } from './taskstages/task-stages.routes.js';
import { configurationVersionsRoutes } from './workspaces/configuration-versions.routes.js';
import { workspacesRoutes } from './workspaces/workspaces.routes.js';

/** Every /api/v2 route, by area. */
export async function registerApiRoutes(api: FastifyInstance, services: Services): Promise<void> {
  await usersRoutes(api, services);
  await tokensRoutes(api, services);
  await organizationsRoutes(api, services);
  await membershipsRoutes(api, services);
  await teamsRoutes(api, services);
  await teamMembersRoutes(api, services);
  await workspacesRoutes(api, services);
  await tasksRoutes(api, services);
  await workspaceTasksRoutes(api, services);
  await configurationVersionsRoutes(api, services);
  await runsRoutes(api, services);
  await phasesRoutes(api, services);
  await taskStagesRoutes(api, services);
  await callbacksRoutes(api, services);
}
