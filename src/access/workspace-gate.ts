import type { Principal } from '../core/principal.js';
import type { WorkspacesTable } from '../db/schema.js';
import { HIDDEN_AS } from './access-table.js';
import type { OrganizationContext, OrganizationGate } from './organization-gate.js';

export interface WorkspaceContext {
  workspace: WorkspacesTable;
  context: OrganizationContext;
}

/** How the gate finds a workspace; the workspaces domain's repository is one (wired in services.ts). */
export interface WorkspaceFinder {
  findById(id: string): Promise<WorkspacesTable | undefined>;
}

/** Things read through their workspace: whoever reads the workspace reads them. */
type ReadThroughWorkspace = 'workspace' | 'run' | 'plan' | 'apply' | 'configuration-version';

/**
 * The first step of every workspace-scoped request (workspace tasks, configuration versions, runs):
 * the workspace exists and the access table lets the caller read it.
 */
export class WorkspaceGate {
  constructor(
    private readonly workspaces: WorkspaceFinder,
    private readonly gate: OrganizationGate,
  ) {}

  async enter(principal: Principal, workspaceId: string, thing: ReadThroughWorkspace = 'workspace'): Promise<WorkspaceContext> {
    const workspace = await this.workspaces.findById(workspaceId);
    if (!workspace) throw HIDDEN_AS[thing]({});
    return { workspace, context: await this.enterOrganizationOf(principal, workspace, thing) };
  }

  /** For rows already loaded (a run, a plan): the caller must be able to read `thing` in the workspace's organization. */
  async enterOrganizationOf(principal: Principal, workspace: { organization_name: string }, thing: ReadThroughWorkspace = 'workspace'): Promise<OrganizationContext> {
    return this.gate.enterFor(principal, workspace.organization_name, thing, 'read', {});
  }
}
