/** Agent pools and the workspaces they may drive. One area of the database schema; src/db/schema.ts gathers them. */
import type { Flag } from './columns.js';

/** An organization's agent pool (migration 035). */
export interface AgentPoolsTable {
  id: string;
  organization_name: string;
  name: string;
  /** 1: any workspace of the organization may use it; 0: only its allowed workspaces. */
  organization_scoped: Flag;
  created_at: string;
  updated_at: string;
}

export interface AgentPoolAllowedWorkspacesTable {
  agent_pool_id: string;
  workspace_id: string;
}
