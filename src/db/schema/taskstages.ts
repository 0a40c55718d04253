/** Task stages, their results and overrides. One area of the database schema; src/db/schema.ts gathers them. */
import type { TaskStageName } from '../../shared/stage-order.js';
import type { Flag } from './columns.js';
import type { EnforcementLevel } from '../../shared/enforcement-levels.js';
import type { ResultStatus, StageStatus } from '../../shared/task-stage-statuses.js';

export interface TaskStagesTable {
  id: string;
  run_id: string;
  stage: TaskStageName;
  status: StageStatus;
  status_timestamps: string;
  /** The workspace's `required-approvals` when the run was created (migration 026). */
  required_approvals: number;
  created_at: string;
  updated_at: string;
}

export interface TaskResultsTable {
  id: string;
  task_stage_id: string;
  run_id: string;
  task_id: string;
  task_name: string;
  task_url: string;
  workspace_task_id: string;
  enforcement_level: EnforcementLevel;
  stage: TaskStageName;
  is_speculative: Flag;
  status: ResultStatus;
  message: string | null;
  url: string | null;
  status_timestamps: string;
  access_token_hash: string | null;
  /** Copied from the workspace task at run creation (migration 016). */
  required_approvals: number;
  created_at: string;
  updated_at: string;
}

export interface TaskResultOutcomesTable {
  id: string;
  task_result_id: string;
  position: number;
  outcome_id: string;
  description: string;
  body: string | null;
  url: string | null;
  /** JSON object of tag name → [{label, level}]. */
  tags: string;
  created_at: string;
}

export interface TaskStageOverridesTable {
  id: string;
  task_stage_id: string;
  run_id: string;
  overridden_by: string;
  comment: string | null;
  /** The overrider's name when they overrode (migration 016). */
  overridden_by_name: string | null;
  created_at: string;
}
