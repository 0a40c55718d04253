import type { Resource } from '../jsonapi.js';
import type { TeamWorkspacesTable } from '../../db/schema.js';
import { grantOfRow } from '../../access/workspace-access.js';

/** Type `team-workspaces` (HCP's team access): the level and every key it grants, as go-tfe's TeamAccess reads it. */
export function teamAccessResource(row: TeamWorkspacesTable): Resource {
  return {
    id: row.id,
    type: 'team-workspaces',
    attributes: { ...grantOfRow(row), 'created-at': row.created_at, 'updated-at': row.updated_at },
    relationships: {
      team: { data: { id: row.team_id, type: 'teams' }, links: { related: `/api/v2/teams/${row.team_id}` } },
      workspace: { data: { id: row.workspace_id, type: 'workspaces' }, links: { related: `/api/v2/workspaces/${row.workspace_id}` } },
    },
    links: { self: `/api/v2/team-workspaces/${row.id}` },
  };
}
