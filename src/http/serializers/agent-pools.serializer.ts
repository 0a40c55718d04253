import type { Resource } from '../jsonapi.js';
import type { AgentPoolView } from '../../agentpools/agent-pools.service.js';

const workspaces = (ids: string[]) => ids.map((id) => ({ id, type: 'workspaces' }));

/** Type `agent-pools`, as go-tfe's AgentPool reads it. Teamstage has no agents of its own: `agent-count` is 0. */
export function agentPoolResource(view: AgentPoolView): Resource {
  const { pool } = view;
  return {
    id: pool.id,
    type: 'agent-pools',
    attributes: {
      name: pool.name,
      'created-at': pool.created_at,
      'organization-scoped': pool.organization_scoped === 1,
      'agent-count': 0,
    },
    relationships: {
      organization: { data: { id: pool.organization_name, type: 'organizations' } },
      workspaces: { data: workspaces(view.workspaceIds) },
      'allowed-workspaces': { data: workspaces(view.allowedWorkspaceIds) },
      'authentication-tokens': { links: { related: `/api/v2/agent-pools/${pool.id}/authentication-tokens` } },
    },
    links: { self: `/api/v2/agent-pools/${pool.id}` },
  };
}
