import type { OrganizationStanding } from '../../access/organization-standing.js';
import { workspacePermissions } from '../../access/workspace-permissions.js';
import type { Resource } from '../jsonapi.js';
import { NOOP_TERRAFORM_VERSION } from '../../runs/noop-executor.js';
import type { WorkspaceRow } from '../../workspaces/workspaces.repository.js';
import { executionModeOf } from '../../workspaces/execution-mode.js';
import { settingsAttributes } from '../../workspaces/workspace-settings.js';

/** Just deep enough for run task gating and go-tfe; one shape for list, show and create. */
export function workspaceResource(row: WorkspaceRow, standing: OrganizationStanding): Resource {
  return {
    id: row.id,
    type: 'workspaces',
    attributes: {
      name: row.name,
      description: row.description,
      'auto-apply': row.auto_apply === 1,
      'execution-mode': executionModeOf(row.execution_mode),
      // Teamstage's: distinct overrides a stage of its runs needs at least (issue 27).
      'required-approvals': Number(row.required_approvals),
      // Teamstage's: the run's author may not approve it where more than one approval is needed (issue 34).
      'prevent-self-approval': Number(row.prevent_self_approval ?? 1) === 1,
      ...settingsAttributes(row),
      'terraform-version': row.terraform_version ?? NOOP_TERRAFORM_VERSION,
      'working-directory': row.working_directory,
      // HCP: how the workspace was made. Teamstage's are all made through the API (the console uses it too).
      source: 'tfe-api',
      locked: false,
      'resource-count': 0,
      'created-at': row.created_at,
      'updated-at': row.updated_at,
      permissions: workspacePermissions(standing),
      actions: { 'is-destroyable': true },
      // HCP: which settings are the workspace's own (true) rather than its organization's default (false).
      // An organization here has no default execution mode and no agent pools: the workspace's own always apply.
      'setting-overwrites': { 'execution-mode': true, 'agent-pool': true },
    },
    relationships: {
      organization: { data: { id: row.organization_name, type: 'organizations' } },
      'current-configuration-version': {
        data: row.current_configuration_version_id ? { id: row.current_configuration_version_id, type: 'configuration-versions' } : null,
      },
    },
    links: {
      // By organization and name, as HCP's (GET /organizations/:org/workspaces/:name); both names are URL-safe by their rule.
      self: `/api/v2/organizations/${row.organization_name}/workspaces/${row.name}`,
      'self-html': `/app/${row.organization_name}/workspaces/${row.name}`,
    },
  };
}
