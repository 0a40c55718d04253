/** Runs, their phases and what they upload. One area of the database schema; src/db/schema.ts gathers them. */
import type { Flag } from './columns.js';
import type { PhaseStatus, RunStatus } from '../../shared/run-statuses.js';

/** A piece of a plan JSON or log (migration 013); a phase points at its upload's id. */
export interface PhaseUploadChunksTable {
  upload_id: string;
  position: number;
  run_id: string;
  data: Buffer;
}

export interface RunsTable {
  id: string;
  workspace_id: string;
  configuration_version_id: string | null;
  /** Its state (src/runs/run-state-machine.ts). */
  status: RunStatus;
  status_timestamps: string;
  message: string;
  plan_only: Flag;
  auto_apply: Flag;
  is_destroy: Flag;
  created_by_user_id: string | null;
  /** Username (or `api-team_…`) as sent to run tasks in `run_created_by`. */
  created_by_name: string | null;
  /** The workspace's execution mode when the run was created; it never changes (migration 012). */
  execution_mode: string;
  /** Why an errored run errored; null otherwise (migration 015). */
  error_message: string | null;
  /** The create attributes echoed back (refresh, target-addrs, variables, …): a JSON object, see run-options.ts (migration 022). */
  options: string;
  /** HCP's operation (plan_only, plan_and_apply, refresh_only, destroy, empty_apply), for filter[operation] (migration 022). */
  operation: string;
  /** The user who applied the run (HCP's confirmed-by), null until then (migration 022). */
  confirmed_by_user_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Plans and applies share one shape; the plan JSON (`json_*`) is used by plans only. */
export interface PhasesTable {
  id: string;
  run_id: string;
  status: PhaseStatus;
  status_timestamps: string;
  has_changes: Flag;
  resource_additions: number;
  resource_changes: number;
  resource_destructions: number;
  /** Derived from `change.importing` in the uploaded plan JSON (migration 012). */
  resource_imports: number;
  /** The upload (phase_upload_chunks) the plan JSON is in, and its size; null before one (migration 013). */
  json_upload_id: string | null;
  json_bytes: number | null;
  /** Its run's execution mode, kept here so a plan or apply document needs no run (migration 012). */
  execution_mode: string;
  /** The log a pipeline uploaded (agent mode), as sent: its upload and size (migration 013). */
  log_upload_id: string | null;
  log_bytes: number | null;
  /** The report the pipeline made: `{"status":"finished"}` or `{"status":"errored","message":"…"}`. */
  agent_report: string | null;
  created_at: string;
  updated_at: string;
}

/** Keys the server signs its own URLs with, one per use (migration 027); never returned. */
export interface SigningKeysTable {
  name: string;
  /** base64url of 32 random bytes. */
  secret: string;
  created_at: string;
}
