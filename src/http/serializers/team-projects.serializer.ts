import type { Resource } from '../jsonapi.js';
import type { TeamProjectsTable } from '../../db/schema.js';
import { projectGrantOfRow } from '../../access/project-access.js';

/** Type `team-projects` (HCP's project team access): the level and every key it grants, as go-tfe's TeamProjectAccess reads it. */
export function teamProjectResource(row: TeamProjectsTable): Resource {
  const grant = projectGrantOfRow(row);
  return {
    id: row.id,
    type: 'team-projects',
    attributes: { access: grant.access, 'project-access': grant.project, 'workspace-access': grant.workspace },
    relationships: {
      team: { data: { id: row.team_id, type: 'teams' }, links: { related: `/api/v2/teams/${row.team_id}` } },
      project: { data: { id: row.project_id, type: 'projects' }, links: { related: `/api/v2/projects/${row.project_id}` } },
    },
    links: { self: `/api/v2/team-projects/${row.id}` },
  };
}
