import { canReadWorkspaces } from '../access/workspace-permissions.js';
import { NotFound } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { OrganizationContext, OrganizationGate } from '../organizations/organization-gate.js';
import type { WorkspaceRow, WorkspacesRepository } from './workspaces.repository.js';

export interface WorkspaceContext {
  workspace: WorkspaceRow;
  context: OrganizationContext;
}

/**
 * The first step of every workspace-scoped request (workspace tasks, configuration versions, runs):
 * the workspace exists and the caller may read it; otherwise 404, indistinguishable from missing.
 */
export class WorkspaceGate {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly gate: OrganizationGate,
  ) {}

  async enter(principal: Principal, workspaceId: string): Promise<WorkspaceContext> {
    const workspace = await this.workspaces.findById(workspaceId);
    if (!workspace) throw new NotFound('workspace not found');
    return { workspace, context: await this.enterOrganizationOf(principal, workspace) };
  }

  /** For rows already loaded (a run, a plan): the caller must be able to read the workspace's organization. */
  async enterOrganizationOf(principal: Principal, workspace: { organization_name: string }, what = 'workspace'): Promise<OrganizationContext> {
    let context: OrganizationContext;
    try {
      context = await this.gate.enter(principal, workspace.organization_name);
    } catch (error) {
      if (error instanceof NotFound) throw new NotFound(`${what} not found`);
      throw error;
    }
    if (!canReadWorkspaces(context.standing)) throw new NotFound(`${what} not found`);
    return context;
  }
}
