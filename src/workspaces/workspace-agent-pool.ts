import { Errors } from '../core/errors.js';
import type { ExecutionMode } from './execution-mode.js';

/** What a workspace needs to know of an agent pool to name it (the agent pools domain answers, wired in services.ts). */
export interface AgentPoolChecker {
  poolFor(poolId: string): Promise<{ organizationName: string; organizationScoped: boolean; allowedWorkspaceIds: string[] } | undefined>;
}

/**
 * The agent pool a workspace names after a create or update (HCP: `agent-pool-id`, only with execution mode
 * `agent`; a pool that is not organization-scoped only for its allowed workspaces). Leaving agent mode leaves
 * the pool too. 422 for a pool that does not exist in the organization or may not be chosen.
 */
export async function agentPoolAfter(
  checker: AgentPoolChecker | undefined,
  change: { organizationName: string; workspaceId?: string; mode: ExecutionMode; current: string | null; sent: string | null | undefined },
): Promise<string | null> {
  const { sent, mode } = change;
  if (sent === undefined) return mode === 'agent' ? change.current : null;
  if (sent === null || sent === '') return null;
  if (mode !== 'agent') throw Errors.agentPoolOnlyInAgentMode();
  const pool = checker ? await checker.poolFor(sent) : undefined;
  if (!pool || pool.organizationName !== change.organizationName) throw Errors.agentPoolUnknown();
  if (!pool.organizationScoped && !(change.workspaceId && pool.allowedWorkspaceIds.includes(change.workspaceId))) throw Errors.agentPoolNotAllowed();
  return sent;
}
