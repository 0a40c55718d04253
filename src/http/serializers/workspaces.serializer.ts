import type { OrganizationStanding } from '../../access/organization-standing.js';
import { workspacePermissions } from '../../access/workspace-permissions.js';
import type { Resource } from '../jsonapi.js';
import { NOOP_TERRAFORM_VERSION } from '../../runs/noop-executor.js';
import type { WorkspaceRow } from '../../workspaces/workspaces.repository.js';
import { executionModeOf } from '../../workspaces/execution-mode.js';
import { settingsAttributes } from '../../workspaces/workspace-settings.js';

/** Just deep enough for run task gating and go-tfe; one shape for list, show and create. */
export function workspaceResource(row: WorkspaceRow, standing: OrganizationStanding, runsCount?: number): Resource {
  return {
    id: row.id,
    type: 'workspaces',
    attributes: {
      name: row.name,
      description: row.description,
      'auto-apply': row.auto_apply === 1,
      'execution-mode': executionModeOf(row.execution_mode),
      // HCP derives the older switch from the mode: only local runs nothing here.
      operations: executionModeOf(row.execution_mode) !== 'local',
      'auto-destroy-at': row.auto_destroy_at,
      // Teamstage's: distinct overrides a stage of its runs needs at least (issue 27).
      'required-approvals': Number(row.required_approvals),
      // Teamstage's: the run's author may not approve it where more than one approval is needed (issue 34).
      'prevent-self-approval': Number(row.prevent_self_approval ?? 1) === 1,
      ...settingsAttributes(row),
      'terraform-version': row.terraform_version ?? NOOP_TERRAFORM_VERSION,
      'working-directory': row.working_directory,
      // HCP: how the workspace was made. Teamstage's are all made through the API (the console uses it too).
      source: 'tfe-api',
      locked: row.locked === 1,
      'resource-count': 0,
      ...(runsCount === undefined ? {} : { 'workspace-kpis-runs-count': runsCount }),
      'created-at': row.created_at,
      'updated-at': row.updated_at,
      permissions: workspacePermissions(standing),
      actions: { 'is-destroyable': true },
      // HCP: which settings are the workspace's own (true) rather than its organization's default (false).
      // The agent pool goes with the execution mode, as in HCP.
      'setting-overwrites': { 'execution-mode': row.execution_mode_overwritten === 1, 'agent-pool': row.execution_mode_overwritten === 1 },
    },
    relationships: {
      organization: { data: { id: row.organization_name, type: 'organizations' } },
      'locked-by': { data: row.locked === 1 && row.locked_by_kind && row.locked_by_id ? { id: row.locked_by_id, type: row.locked_by_kind } : null },
      'agent-pool': { data: row.agent_pool_id ? { id: row.agent_pool_id, type: 'agent-pools' } : null },
      // HCP: the project it is in (the organization's default project unless it was created in or moved to another).
      project: { data: row.project_id ? { id: row.project_id, type: 'projects' } : null },
      'current-configuration-version': {
        data: row.current_configuration_version_id ? { id: row.current_configuration_version_id, type: 'configuration-versions' } : null,
      },
      // HCP's: the run that took the workspace's turn last, so the one holding it while one does.
      'current-run': { data: row.current_run_id ? { id: row.current_run_id, type: 'runs' } : null },
    },
    links: {
      // By organization and name, as HCP's (GET /organizations/:org/workspaces/:name); both names are URL-safe by their rule.
      self: `/api/v2/organizations/${row.organization_name}/workspaces/${row.name}`,
      'self-html': `/app/${row.organization_name}/workspaces/${row.name}`,
    },
  };
}
