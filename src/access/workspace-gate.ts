import type { Principal } from '../core/principal.js';
import type { WorkspacesTable } from '../db/schema.js';
import { HIDDEN_AS, type ActionOn, type ThingFacts } from './access-table.js';
import type { OrganizationContext, OrganizationGate } from './organization-gate.js';
import type { OrganizationStanding } from './organization-standing.js';
import { requireAccess } from './require-access.js';
import { FIXED_LEVELS, unionGrants, type WorkspaceGrant } from './workspace-access.js';

export interface WorkspaceContext {
  workspace: WorkspacesTable;
  context: OrganizationContext;
}

/** How the gate finds a workspace; the workspaces domain's repository is one (wired in services.ts). */
export interface WorkspaceFinder {
  findById(id: string): Promise<WorkspacesTable | undefined>;
}

/** How the gate reads the caller's teams' access to workspaces (workspace-grants.repository.ts). */
export interface WorkspaceGrantReader {
  grantsOn(workspaceId: string, teamIds: ReadonlySet<string>): Promise<WorkspaceGrant[]>;
  grantsIn(organizationName: string, teamIds: ReadonlySet<string>): Promise<Map<string, WorkspaceGrant[]>>;
  agentPoolOf(workspaceId: string): Promise<string | undefined>;
}

/** What an agent token holds on a workspace that names its pool: HCP's `write` (read, queue, apply), nothing more. */
export const AGENT_GRANT: WorkspaceGrant = { access: 'write', ...FIXED_LEVELS.write };

/** Things read through their workspace: whoever reads the workspace reads them. */
export type ReadThroughWorkspace =
  | 'workspace' | 'run' | 'plan' | 'apply' | 'configuration-version' | 'task-stage' | 'task-result' | 'policy-evaluation' | 'policy-set-outcome';

/** The standing with the caller's access to one workspace attached (pure). */
export function inWorkspace(standing: OrganizationStanding, workspaceId: string, grants: readonly WorkspaceGrant[]): OrganizationStanding {
  return { ...standing, workspace: { id: workspaceId, grant: unionGrants(grants) } };
}

/** Whether the caller's teams' access can change anything: owners hold everything already, a caller in no team holds none. */
function grantsCanMatter(standing: OrganizationStanding): boolean {
  return standing.isMember && !standing.isOwner && standing.teamIds.size > 0;
}

/**
 * The first step of every workspace-scoped request (the workspace, its tasks, configuration versions, runs,
 * plans, applies, stages and results): the workspace exists, the caller's standing in its organization and
 * their teams' access to it are read once, and the access table lets the caller read `thing`. Every later
 * decision of the request asks the standing this returns.
 */
export class WorkspaceGate {
  constructor(
    private readonly workspaces: WorkspaceFinder,
    private readonly gate: OrganizationGate,
    private readonly grants: WorkspaceGrantReader,
  ) {}

  async enter(principal: Principal, workspaceId: string, thing: ReadThroughWorkspace = 'workspace'): Promise<WorkspaceContext> {
    const workspace = await this.workspaces.findById(workspaceId);
    if (!workspace) throw HIDDEN_AS[thing]({} as never);
    return { workspace, context: await this.enterOrganizationOf(principal, workspace, thing) };
  }

  /** For rows already loaded (a run, a plan, a stage's place): the caller must be able to read `thing` in this workspace. */
  async enterOrganizationOf(
    principal: Principal,
    workspace: { id: string; organization_name: string },
    thing: ReadThroughWorkspace = 'workspace',
  ): Promise<OrganizationContext> {
    const context = await this.gate.contextOf(principal, workspace.organization_name);
    const withWorkspace = context && (await this.attach(context, workspace.id));
    requireAccess(withWorkspace?.standing, thing, 'read' as ActionOn<typeof thing>, {} as ThingFacts[typeof thing]);
    return withWorkspace!;
  }

  /** A principal's standing in the workspace's organization with their access to it, without asking to read anything (to count an earlier approval again). */
  async standingIn(principal: Principal, workspace: { id: string; organization_name: string }): Promise<OrganizationStanding | undefined> {
    const context = await this.gate.contextOf(principal, workspace.organization_name);
    return context ? (await this.attach(context, workspace.id)).standing : undefined;
  }

  /** The context with the caller's access to `workspaceId` attached: one statement, and none when it cannot matter. */
  async attach(context: OrganizationContext, workspaceId: string): Promise<OrganizationContext> {
    const { standing } = context;
    const { principal } = standing;
    if (principal.kind === 'agent') {
      const drives = standing.isMember && (await this.grants.agentPoolOf(workspaceId)) === principal.agentPoolId;
      return { ...context, standing: inWorkspace(standing, workspaceId, drives ? [AGENT_GRANT] : []) };
    }
    const grants = grantsCanMatter(standing) ? await this.grants.grantsOn(workspaceId, standing.teamIds) : [];
    return { ...context, standing: inWorkspace(standing, workspaceId, grants) };
  }

  /**
   * For a list of an organization's workspaces, with one statement for them all: the workspaces the caller's
   * teams have access to, and each workspace's standing.
   */
  async standingsIn(context: OrganizationContext): Promise<{ grantedIds: string[]; standingOf: (workspaceId: string) => OrganizationStanding }> {
    const { standing } = context;
    const byWorkspace = grantsCanMatter(standing) ? await this.grants.grantsIn(context.organization.name, standing.teamIds) : new Map<string, WorkspaceGrant[]>();
    return { grantedIds: [...byWorkspace.keys()], standingOf: (workspaceId) => inWorkspace(standing, workspaceId, byWorkspace.get(workspaceId) ?? []) };
  }
}
