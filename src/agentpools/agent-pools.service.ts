import { requireAccess } from '../access/require-access.js';
import type { OrganizationContext, OrganizationGate } from '../access/organization-gate.js';
import { nowIso } from '../core/clock.js';
import { Errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import { isUniqueViolation } from '../db/database.js';
import type { AgentPoolsTable } from '../db/schema.js';
import { tokenChanged } from '../identity/token-audit.js';
import { generateToken, hashToken } from '../identity/token-secrets.js';
import type { TokenRow, TokensRepository } from '../identity/tokens.repository.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import type { AgentPoolListOptions, AgentPoolsRepository } from './agent-pools.repository.js';

export interface AgentPoolView {
  pool: AgentPoolsTable;
  allowedWorkspaceIds: string[];
  workspaceIds: string[];
}

export interface VisibleAgentPool {
  pool: AgentPoolsTable;
  context: OrganizationContext;
}

export interface AgentPoolInput {
  name?: string;
  'organization-scoped'?: boolean;
}

/**
 * HCP's agent pools and their agent tokens (issue 36). An agent-mode workspace names its pool; the pool's agent
 * tokens drive the pipeline protocol for those workspaces and nothing else (access/workspace-gate.ts,
 * http/agent-token-routes.ts). Members see pools; owners and `manage-agent-pools` change them and their tokens.
 */
export class AgentPoolsService {
  constructor(
    private readonly pools: AgentPoolsRepository,
    private readonly tokens: TokensRepository,
    private readonly gate: OrganizationGate,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  /** The `agent-pool` lookup. */
  async visible(principal: Principal, id: string): Promise<VisibleAgentPool> {
    const pool = await this.pools.findById(id);
    if (!pool) throw Errors.agentPoolNotFound();
    const context = await this.gate.enterFor(principal, pool.organization_name, 'agent-pool', 'read', {});
    return { pool, context };
  }

  async list(found: OrganizationContext, page: PageRequest, options: AgentPoolListOptions = {}): Promise<Page<AgentPoolView>> {
    requireAccess(found.standing, 'agent-pool', 'read', {});
    const { rows, total } = await this.pools.list(found.organization.name, page.offset, page.size, options);
    return pageOf(page, await this.views(rows), total);
  }

  async show(found: VisibleAgentPool): Promise<AgentPoolView> {
    return (await this.views([found.pool]))[0]!;
  }

  async create(found: OrganizationContext, input: AgentPoolInput, allowedWorkspaceIds: string[] = []): Promise<AgentPoolView> {
    requireAccess(found.standing, 'organization', 'create-agent-pool', { name: found.organization.name });
    if (typeof input.name !== 'string' || input.name.trim() === '') throw Errors.agentPoolNameRequired();
    await this.requireWorkspaces(found.organization.name, allowedWorkspaceIds);
    const now = nowIso();
    const pool: AgentPoolsTable = {
      id: newId('apool'),
      organization_name: found.organization.name,
      name: input.name,
      organization_scoped: input['organization-scoped'] === false ? 0 : 1,
      created_at: now,
      updated_at: now,
    };
    await this.write(() => this.auditTrail.transaction(async (trx) => {
      await this.pools.insert(pool, allowedWorkspaceIds, trx);
      return { result: undefined, entries: [] };
    }));
    return this.show({ pool, context: found });
  }

  async update(found: VisibleAgentPool, input: AgentPoolInput, allowedWorkspaceIds: string[] | undefined): Promise<AgentPoolView> {
    const { pool, context } = found;
    requireAccess(context.standing, 'agent-pool', 'manage', {});
    if (input.name !== undefined && (typeof input.name !== 'string' || input.name.trim() === '')) throw Errors.agentPoolNameRequired();
    if (allowedWorkspaceIds) await this.requireWorkspaces(pool.organization_name, allowedWorkspaceIds);
    const changes: Parameters<AgentPoolsRepository['update']>[1] = { updated_at: nowIso() };
    if (input.name !== undefined) changes.name = input.name;
    if (input['organization-scoped'] !== undefined) changes.organization_scoped = input['organization-scoped'] ? 1 : 0;
    await this.write(() => this.auditTrail.transaction(async (trx) => {
      await this.pools.update(pool.id, changes, trx);
      if (allowedWorkspaceIds) await this.pools.setAllowed(pool.id, allowedWorkspaceIds, trx);
      return { result: undefined, entries: [] };
    }));
    return this.show({ pool: (await this.pools.findById(pool.id)) ?? pool, context });
  }

  /**
   * Its tokens go with it. A pool that agent-mode workspaces name is refused (409): they would be left in
   * agent mode with no pool, which HCP's API never shows and the `tfe` provider cannot plan.
   */
  async delete(found: VisibleAgentPool): Promise<void> {
    requireAccess(found.context.standing, 'agent-pool', 'manage', {});
    const heldBy = await this.pools.deleteUnused(found.pool.id);
    if (heldBy > 0) throw Errors.agentPoolInUse(heldBy);
  }

  async listTokens(found: VisibleAgentPool, page: PageRequest): Promise<Page<TokenRow>> {
    requireAccess(found.context.standing, 'agent-pool', 'manage', {});
    const rows = await this.tokens.listForAgentPool(found.pool.id);
    return pageOf(page, rows.slice(page.offset, page.offset + page.size), rows.length);
  }

  /** A new agent token: its secret is in this answer only. */
  async createToken(principal: Principal, found: VisibleAgentPool, description: string | null): Promise<{ row: TokenRow; secret: string }> {
    const { pool, context } = found;
    requireAccess(context.standing, 'agent-pool', 'manage', {});
    const secret = generateToken();
    const row: TokenRow = {
      id: newId('at'),
      kind: 'agent',
      token_hash: hashToken(secret),
      user_id: null,
      organization_name: pool.organization_name,
      team_id: null,
      is_legacy: 0,
      description,
      created_by_id: principal.kind === 'user' ? principal.userId : null,
      created_at: nowIso(),
      expired_at: null,
      last_used_at: null,
      acts_as_person: 1,
      agent_pool_id: pool.id,
    };
    await this.auditTrail.transaction(async (trx) => {
      await this.tokens.insert(row, trx);
      return { result: undefined, entries: [tokenChanged(principal, pool.organization_name, row, 'create')] };
    });
    return { row, secret };
  }

  /** Whether the pool of an agent token may be managed by the caller (the `token` lookup of `/authentication-tokens/:id`). */
  async manageableToken(principal: Principal, row: TokenRow): Promise<void> {
    const pool = row.agent_pool_id ? await this.pools.findById(row.agent_pool_id) : undefined;
    if (!pool) throw Errors.tokenNotFound();
    await this.gate.enterFor(principal, pool.organization_name, 'agent-pool', 'manage', {});
  }

  /** What a workspace needs to name a pool (workspaces/workspace-agent-pool.ts). */
  async poolFor(poolId: string): Promise<{ organizationName: string; organizationScoped: boolean; allowedWorkspaceIds: string[] } | undefined> {
    const pool = await this.pools.findById(poolId);
    if (!pool) return undefined;
    const allowed = await this.pools.allowedOf([pool.id]);
    return { organizationName: pool.organization_name, organizationScoped: pool.organization_scoped === 1, allowedWorkspaceIds: allowed.get(pool.id) ?? [] };
  }

  private async views(rows: AgentPoolsTable[]): Promise<AgentPoolView[]> {
    const ids = rows.map((row) => row.id);
    const allowed = await this.pools.allowedOf(ids);
    const using = await this.pools.workspacesOf(ids);
    return rows.map((pool) => ({ pool, allowedWorkspaceIds: allowed.get(pool.id) ?? [], workspaceIds: using.get(pool.id) ?? [] }));
  }

  private async requireWorkspaces(organizationName: string, ids: readonly string[]): Promise<void> {
    const found = await this.pools.workspacesIn(organizationName, ids);
    for (const id of ids) if (!found.has(id)) throw Errors.workspaceNotFound();
  }

  private async write(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.nameTaken();
      throw error;
    }
  }
}
