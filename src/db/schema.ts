/**
 * Table types. Both dialects store the same shapes: booleans as 0/1 integers, timestamps as ISO-8601
 * UTC text (sorts correctly, and is exactly what the API returns), JSON as text. One set of repository
 * code then serves SQLite and PostgreSQL.
 *
 * The tables are declared by area in src/db/schema/ (one file each); this file gathers them into
 * Kysely's `Database`, and every table type is imported from here.
 */
import type { TaskStageName } from '../shared/stage-order.js';
import type { UsersTable, TokensTable } from './schema/identity.js';
import type { OrganizationsTable, OrganizationMembershipsTable, OrganizationTeamCountsTable } from './schema/organizations.js';
import type { TeamsTable, TeamMembershipsTable } from './schema/teams.js';
import type { JobsTable } from './schema/jobs.js';
import type { WorkspacesTable, OrganizationTagsTable, WorkspaceTagsTable, WorkspaceRemoteStateConsumersTable, ConfigurationVersionsTable, ConfigurationArchiveChunksTable } from './schema/workspaces.js';
import type { TasksTable, WorkspaceTasksTable } from './schema/runtasks.js';
import type { PhaseUploadChunksTable, RunsTable, PhasesTable, SigningKeysTable } from './schema/runs.js';
import type { CommentsTable, RunEventsTable, AuditTrailTable } from './schema/record.js';
import type { TaskStagesTable, TaskResultsTable, TaskResultOutcomesTable, TaskStageOverridesTable } from './schema/taskstages.js';
import type { DeliveryAttemptsTable, TaskResultAccessTokensTable } from './schema/delivery.js';
import type { PoliciesTable, PolicySetsTable, PolicySetParametersTable, PolicySetVersionsTable, PolicySetPoliciesTable, PolicySetWorkspacesTable, PolicyEvaluationsTable, PolicySetOutcomesTable } from './schema/policies.js';
import type { TeamWorkspacesTable } from './schema/teamaccess.js';
import type { AgentPoolsTable, AgentPoolAllowedWorkspacesTable } from './schema/agentpools.js';
import type { ProjectsTable, TeamProjectsTable } from './schema/projects.js';

/** The run stages that can trigger run tasks; their order is in core/stage-order.ts. */
export type { TaskStageName };
export type * from './schema/columns.js';
export type * from './schema/identity.js';
export type * from './schema/organizations.js';
export type * from './schema/teams.js';
export type * from './schema/jobs.js';
export type * from './schema/workspaces.js';
export type * from './schema/runtasks.js';
export type * from './schema/runs.js';
export type * from './schema/record.js';
export type * from './schema/taskstages.js';
export type * from './schema/delivery.js';
export type * from './schema/policies.js';
export type * from './schema/teamaccess.js';
export type * from './schema/agentpools.js';
export type * from './schema/projects.js';

export interface Database {
  comments: CommentsTable;
  signing_keys: SigningKeysTable;
  run_events: RunEventsTable;
  audit_trail: AuditTrailTable;
  organization_team_counts: OrganizationTeamCountsTable;
  jobs: JobsTable;
  users: UsersTable;
  tokens: TokensTable;
  organizations: OrganizationsTable;
  organization_memberships: OrganizationMembershipsTable;
  teams: TeamsTable;
  team_memberships: TeamMembershipsTable;
  delivery_attempts: DeliveryAttemptsTable;
  task_result_access_tokens: TaskResultAccessTokensTable;
  task_result_outcomes: TaskResultOutcomesTable;
  task_stage_overrides: TaskStageOverridesTable;
  workspaces: WorkspacesTable;
  organization_tags: OrganizationTagsTable;
  workspace_tags: WorkspaceTagsTable;
  workspace_remote_state_consumers: WorkspaceRemoteStateConsumersTable;
  tasks: TasksTable;
  workspace_tasks: WorkspaceTasksTable;
  configuration_versions: ConfigurationVersionsTable;
  configuration_archive_chunks: ConfigurationArchiveChunksTable;
  runs: RunsTable;
  phase_upload_chunks: PhaseUploadChunksTable;
  plans: PhasesTable;
  applies: PhasesTable;
  task_stages: TaskStagesTable;
  task_results: TaskResultsTable;
  policies: PoliciesTable;
  policy_sets: PolicySetsTable;
  policy_set_policies: PolicySetPoliciesTable;
  policy_set_parameters: PolicySetParametersTable;
  policy_set_versions: PolicySetVersionsTable;
  policy_set_workspaces: PolicySetWorkspacesTable;
  policy_evaluations: PolicyEvaluationsTable;
  policy_set_outcomes: PolicySetOutcomesTable;
  team_workspaces: TeamWorkspacesTable;
  agent_pools: AgentPoolsTable;
  agent_pool_allowed_workspaces: AgentPoolAllowedWorkspacesTable;
  projects: ProjectsTable;
  team_projects: TeamProjectsTable;
}
