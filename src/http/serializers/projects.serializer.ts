import { allows } from '../../access/require-access.js';
import type { ProjectView } from '../../projects/projects.service.js';
import type { Resource } from '../jsonapi.js';

/** Type `projects`, as go-tfe's Project reads it: counts, HCP's permissions for the caller, execution defaults. */
export function projectResource(view: ProjectView): Resource {
  const { project, standing } = view;
  const can = (action: 'read' | 'update' | 'delete' | 'manage-team-access' | 'create-workspace' | 'move-workspace') => allows(standing, 'project', action, {});
  const executionMode = project.default_execution_mode ?? view.organizationMode;
  return {
    id: project.id,
    type: 'projects',
    attributes: {
      name: project.name,
      description: project.description,
      'created-at': project.created_at,
      'workspace-count': view.workspaceCount,
      'team-count': view.teamCount,
      'auto-destroy-activity-duration': project.auto_destroy_activity_duration,
      'default-execution-mode': executionMode,
      'setting-overwrites': { 'default-execution-mode': project.default_execution_mode !== null, 'default-agent-pool': project.default_execution_mode !== null },
      'is-unified': false,
      permissions: {
        'can-read': can('read'),
        'can-update': can('update'),
        'can-destroy': can('delete') && project.default_of === null,
        'can-create-workspace': can('create-workspace'),
        'can-move-workspace': can('move-workspace'),
        'can-read-teams': can('read'),
        'can-manage-teams': can('manage-team-access'),
        'can-manage-tags': can('update'),
        'can-manage-varsets': false,
      },
    },
    relationships: {
      organization: { data: { id: project.organization_name, type: 'organizations' } },
      'default-agent-pool': { data: project.default_agent_pool_id ? { id: project.default_agent_pool_id, type: 'agent-pools' } : null },
    },
    links: { self: `/api/v2/projects/${project.id}` },
  };
}
