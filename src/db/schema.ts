/**
 * Table types. Both dialects store the same shapes: booleans as 0/1 integers, timestamps as ISO-8601
 * UTC text (sorts correctly, and is exactly what the API returns), JSON as text. One set of repository
 * code then serves SQLite and PostgreSQL.
 */
import type { Generated } from 'kysely';
import type { TaskStageName } from '../shared/stage-order.js';

export type Flag = 0 | 1;

export interface UsersTable {
  id: string;
  username: string;
  username_lower: string;
  email: string | null;
  email_lower: string | null;
  is_service_account: Flag;
  /** Service accounts only: `team:<id>`, `organization:<name>` or `site-admin`, what the account is found by. */
  service_account_owner: string | null;
  created_at: string;
}

/** `audit-trail`: an organization's audit trail token, which coexists with its organization token. */
export type TokenKind = 'site' | 'user' | 'organization' | 'audit-trail' | 'team' | 'agent';

export interface TokensTable {
  id: string;
  kind: TokenKind;
  token_hash: string;
  user_id: string | null;
  organization_name: string | null;
  team_id: string | null;
  /** 1 for the legacy single team token (`/teams/:id/authentication-token`). */
  is_legacy: Flag;
  description: string | null;
  created_by_id: string | null;
  created_at: string;
  expired_at: string | null;
  last_used_at: string | null;
  /** 0 for a team token minted by the organization token, or by a token that may not act as a person. */
  acts_as_person: Flag;
  /** An agent token's pool (migration 035); null for every other kind. */
  agent_pool_id?: string | null;
}

export interface OrganizationsTable {
  name: string;
  name_lower: string;
  email: string;
  feature_set: string;
  created_at: string;
  updated_at: string;
  /** The user who created it (TEAMSTAGE_ORGANIZATIONS_PER_USER counts these); null: the site admin, or before migration 014. */
  created_by_user_id?: string | null;
  /** What workspaces without their own execution mode follow (migration 033). */
  default_execution_mode?: string;
  /** HCP's other organization settings, a JSON object (src/organizations/organization-settings.ts; migration 033). Optional: reads that only gate access leave both out. */
  settings?: string;
}

export type MembershipStatus = 'invited' | 'active';

export interface OrganizationMembershipsTable {
  id: string;
  organization_name: string;
  user_id: string;
  status: MembershipStatus;
  created_at: string;
}

export interface TeamsTable {
  id: string;
  organization_name: string;
  name: string;
  name_lower: string;
  sso_team_id: string | null;
  visibility: 'secret' | 'organization';
  allow_member_token_management: Flag;
  /** JSON object of the sixteen organization-access booleans. */
  organization_access: string;
  is_owners: Flag;
  /** The `api-team_<suffix>` user, created with the team's first token. */
  service_account_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface TeamMembershipsTable {
  team_id: string;
  organization_membership_id: string;
  created_at: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  /** Not before this time (ISO). */
  run_at: string;
  attempts: number;
  /** The node holding the lease, until `locked_until`; an expired lease is free to claim again. */
  locked_by: string | null;
  locked_until: string | null;
  /** At most one pending job per key (e.g. one timeout per result). */
  dedupe_key: string | null;
  last_error: string | null;
  created_at: string;
  /** Which of the node's lanes runs it (jobs/job-lanes.ts); 'work' by default. */
  lane: string;
  /** The organization the job works for, to share a lane fairly; '' when none (migration 008). */
  organization_name: string;
}

/** The run stages that can trigger run tasks; their order is in core/stage-order.ts. */
export type { TaskStageName };

/** A team's access to one workspace (migration 034; src/access/workspace-access.ts says what each value grants). */
export interface TeamWorkspacesTable {
  id: string;
  organization_name: string;
  team_id: string;
  workspace_id: string;
  /** `read`, `plan`, `write`, `admin` or `custom`. */
  access: string;
  runs: string;
  variables: string;
  state_versions: string;
  sentinel_mocks: string;
  workspace_locking: Flag;
  run_tasks: Flag;
  policy_overrides: Flag;
  created_at: string;
  updated_at: string;
}

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
  enforcement_level: 'advisory' | 'mandatory';
  /** JSON array of TaskStageName, in run order. */
  stages: string;
  /** Distinct people whose overrides a failed mandatory result of this task needs (migration 016). */
  required_approvals: number;
  created_at: string;
  updated_at: string;
}

export interface ConfigurationVersionsTable {
  id: string;
  workspace_id: string;
  status: 'pending' | 'uploaded';
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
  /** A RunStatus (src/runs/run-state-machine.ts). */
  status: string;
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
  status: string;
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

export interface TaskStagesTable {
  id: string;
  run_id: string;
  stage: TaskStageName;
  status: string;
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
  enforcement_level: 'advisory' | 'mandatory';
  stage: TaskStageName;
  is_speculative: Flag;
  status: string;
  message: string | null;
  url: string | null;
  status_timestamps: string;
  access_token_hash: string | null;
  /** Copied from the workspace task at run creation (migration 016). */
  required_approvals: number;
  created_at: string;
  updated_at: string;
}

/** One outbound run task request (every attempt is recorded, not only the last). */
export interface DeliveryAttemptsTable {
  id: string;
  task_result_id: string;
  attempt: number;
  url: string;
  started_at: string;
  finished_at: string | null;
  outcome: 'accepted' | 'rejected' | 'network_error' | null;
  http_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

/** Hashes of the per-result access tokens sent with each attempt. */
export interface TaskResultAccessTokensTable {
  token_hash: string;
  task_result_id: string;
  run_id: string;
  created_at: string;
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

/** A run's comment (migration 015): HCP's `comments`. */
export interface CommentsTable {
  id: string;
  run_id: string;
  body: string;
  author_user_id: string | null;
  author_name: string | null;
  /** The run event that carries it. */
  run_event_id: string | null;
  created_at: string;
}

/** HCP's run events (migration 015); `seq` orders them. */
export interface RunEventsTable {
  seq: Generated<number>;
  id: string;
  run_id: string;
  action: string;
  description: string;
  actor_user_id: string | null;
  actor_name: string | null;
  comment_id: string | null;
  created_at: string;
}

/** HCP's organization audit trail (migration 023); `seq` orders it, `meta` is a JSON object. */
export interface AuditTrailTable {
  seq: Generated<number>;
  id: string;
  organization_name: string;
  timestamp: string;
  accessor_id: string | null;
  actor_name: string;
  actor_kind: string;
  request_id: string | null;
  resource_id: string;
  resource_type: string;
  action: string;
  meta: string | null;
}

/** Migration 018 (issue 29): an OPA policy; `rego` is null until uploaded. */
export interface PoliciesTable {
  id: string;
  organization_name: string;
  name: string;
  description: string | null;
  kind: string;
  query: string;
  enforcement_level: string;
  rego: string | null;
  rego_version: string | null;
  created_at: string;
  updated_at: string;
}

export interface PolicySetsTable {
  id: string;
  organization_name: string;
  name: string;
  description: string | null;
  kind: string;
  overridable: number;
  global: number;
  created_at: string;
  updated_at: string;
}

/** Migration 040: HCP's policy set parameters (kept for Sentinel sets; a sensitive value is write-only). */
export interface PolicySetParametersTable {
  id: string;
  policy_set_id: string;
  key: string;
  value: string;
  sensitive: number;
  created_at: string;
  updated_at: string;
}

export interface PolicySetPoliciesTable {
  policy_set_id: string;
  policy_id: string;
}

export interface PolicySetWorkspacesTable {
  policy_set_id: string;
  workspace_id: string;
  /** 1: an exclusion. */
  excluded: number;
}

/** Migration 019: one per post-plan stage whose workspace had a policy set at run creation. */
export interface PolicyEvaluationsTable {
  id: string;
  task_stage_id: string;
  run_id: string;
  status: string;
  status_timestamps: string;
  result_count: string;
  hold: string;
  created_at: string;
  updated_at: string;
}

export interface PolicySetOutcomesTable {
  id: string;
  policy_evaluation_id: string;
  position: number;
  policy_set_id: string;
  policy_set_name: string;
  policy_set_description: string | null;
  overridable: number;
  error: string | null;
  outcomes: string;
  result_count: string;
  created_at: string;
}

/** Maintained by triggers (migration 005): how many teams, and how many with visibility `organization`. */
export interface OrganizationTeamCountsTable {
  organization_name: string;
  teams: number;
  visible_teams: number;
}

export interface Database {
  comments: CommentsTable;
  signing_keys: SigningKeysTable;
  run_events: RunEventsTable;
  audit_trail: AuditTrailTable;
  organization_team_counts: OrganizationTeamCountsTable;
  jobs: JobsTable;
  users: UsersTable;
  tokens: TokensTable;
  organizations: OrganizationsTable;
  organization_memberships: OrganizationMembershipsTable;
  teams: TeamsTable;
  team_memberships: TeamMembershipsTable;
  delivery_attempts: DeliveryAttemptsTable;
  task_result_access_tokens: TaskResultAccessTokensTable;
  task_result_outcomes: TaskResultOutcomesTable;
  task_stage_overrides: TaskStageOverridesTable;
  workspaces: WorkspacesTable;
  organization_tags: OrganizationTagsTable;
  workspace_tags: WorkspaceTagsTable;
  workspace_remote_state_consumers: WorkspaceRemoteStateConsumersTable;
  tasks: TasksTable;
  workspace_tasks: WorkspaceTasksTable;
  configuration_versions: ConfigurationVersionsTable;
  configuration_archive_chunks: ConfigurationArchiveChunksTable;
  runs: RunsTable;
  phase_upload_chunks: PhaseUploadChunksTable;
  plans: PhasesTable;
  applies: PhasesTable;
  task_stages: TaskStagesTable;
  task_results: TaskResultsTable;
  policies: PoliciesTable;
  policy_sets: PolicySetsTable;
  policy_set_policies: PolicySetPoliciesTable;
  policy_set_parameters: PolicySetParametersTable;
  policy_set_workspaces: PolicySetWorkspacesTable;
  policy_evaluations: PolicyEvaluationsTable;
  policy_set_outcomes: PolicySetOutcomesTable;
  team_workspaces: TeamWorkspacesTable;
  agent_pools: AgentPoolsTable;
  agent_pool_allowed_workspaces: AgentPoolAllowedWorkspacesTable;
}
