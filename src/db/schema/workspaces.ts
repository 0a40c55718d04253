/** Workspaces and their configuration versions. One area of the database schema; src/db/schema.ts gathers them. */
import type { Flag } from './columns.js';

export interface WorkspacesTable {
  id: string;
  organization_name: string;
  name: string;
  name_lower: string;
  description: string | null;
  auto_apply: Flag;
  working_directory: string;
  /** `remote`, `agent` or `local` (src/workspaces/execution-mode.ts; migration 012). */
  execution_mode: string;
  created_at: string;
  updated_at: string;
  /** Settings the tfe provider sets, stored and returned as sent (src/workspaces/workspace-settings.ts; migration 017). */
  allow_destroy_plan: Flag;
  assessments_enabled: Flag;
  auto_apply_run_trigger: Flag;
  file_triggers_enabled: Flag;
  global_remote_state: Flag;
  /** Distinct people whose overrides a stage of its runs needs at least (migration 026). */
  required_approvals: number;
  /** Where a stage needs more than one approval, the run's author may not give one (migration 028). */
  prevent_self_approval: Flag;
  queue_all_runs: Flag;
  speculative_enabled: Flag;
  structured_run_output_enabled: Flag;
  /** JSON arrays of strings. */
  trigger_prefixes: string;
  trigger_patterns: string;
  tag_names: string;
  source_name: string | null;
  source_url: string | null;
  /** As set; null shows the executor's version. */
  terraform_version: string | null;
  /** HCP's current-configuration-version: the newest non-provisional version, or a provisional one applied (migration 024). */
  current_configuration_version_id: string | null;
  /** HCP's current-run: the run that took the workspace's turn last (migration 029). */
  current_run_id: string | null;
  /** Stored and echoed (migration 032). */
  auto_destroy_at: string | null;
  /** 0: follows the organization's default execution mode (HCP's setting-overwrites; migration 032). */
  execution_mode_overwritten: Flag;
  /** HCP's workspace lock and who holds it: kind `users`, `teams` or `runs` (migration 032). */
  locked: Flag;
  locked_by_kind: string | null;
  locked_by_id: string | null;
  /** The agent pool an agent-mode workspace names (migration 035): its agent tokens drive this workspace's runs. */
  agent_pool_id?: string | null;
  /** Its project (migration 045); null only for one an older node created: the organization's default project. */
  project_id?: string | null;
}

/** HCP's tags: named once per organization, attached to workspaces in order (migration 032). */
export interface OrganizationTagsTable {
  id: string;
  organization_name: string;
  name: string;
  created_at: string;
}

export interface WorkspaceTagsTable {
  workspace_id: string;
  tag_id: string;
  position: number;
}

/** Workspaces that may read a workspace's state (HCP's remote state consumers; migration 032). */
export interface WorkspaceRemoteStateConsumersTable {
  workspace_id: string;
  consumer_id: string;
  created_at: string;
}

export interface ConfigurationVersionsTable {
  id: string;
  workspace_id: string;
  /** `archived` (issue 37): HCP's archive action freed its stored archive; the row stays. */
  status: 'pending' | 'uploaded' | 'archived';
  /** JSON object of `<status>-at` timestamps. */
  status_timestamps: string;
  auto_queue_runs: Flag;
  speculative: Flag;
  /** Becomes the workspace's current version only when a run made from it is applied (migration 024). */
  provisional: Flag;
  upload_token_hash: string;
  archive_size: number | null;
  created_by_user_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A configuration archive in pieces, in `position` order (migration 008). */
export interface ConfigurationArchiveChunksTable {
  configuration_version_id: string;
  position: number;
  data: Buffer;
}
