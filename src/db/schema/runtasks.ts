/** Run tasks and their attachment to workspaces. One area of the database schema; src/db/schema.ts gathers them. */
import type { TaskStageName } from '../../shared/stage-order.js';
import type { Flag } from './columns.js';
import type { EnforcementLevel } from '../../shared/enforcement-levels.js';

export interface TasksTable {
  id: string;
  organization_name: string;
  name: string;
  name_lower: string;
  url: string;
  description: string | null;
  category: string;
  /** Write-only: used to sign requests, never returned or logged. */
  hmac_key: string | null;
  enabled: Flag;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceTasksTable {
  id: string;
  workspace_id: string;
  task_id: string;
  enforcement_level: EnforcementLevel;
  /** JSON array of TaskStageName, in run order. */
  stages: string;
  /** Distinct people whose overrides a failed mandatory result of this task needs (migration 016). */
  required_approvals: number;
  created_at: string;
  updated_at: string;
}
