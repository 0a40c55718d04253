/** OPA policies, policy sets and their evaluations. One area of the database schema; src/db/schema.ts gathers them. */
import type { PolicyLevel } from '../../shared/enforcement-levels.js';
import type { PolicyEvaluationStatus, PolicyHold } from '../../shared/policy-evaluation-statuses.js';
import type { PolicyKind } from '../../shared/policy-kinds.js';

/** Migration 018 (issue 29): an OPA policy; `rego` is null until uploaded. */
export interface PoliciesTable {
  id: string;
  organization_name: string;
  name: string;
  description: string | null;
  kind: PolicyKind;
  query: string;
  enforcement_level: PolicyLevel;
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
  kind: PolicyKind;
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

/** A policy set version's statuses (HCP's names): pending until its archive is uploaded, then ready or errored. */
export type PolicySetVersionStatus = 'pending' | 'ready' | 'errored';

/** Migration 049: HCP's policy set versions (the archive is read on upload, never kept). */
export interface PolicySetVersionsTable {
  id: string;
  policy_set_id: string;
  status: PolicySetVersionStatus;
  status_timestamps: string;
  error: string | null;
  upload_token_hash: string;
  /** Shown in `links.upload` to the set's managers while pending; null once the version left pending. */
  upload_token: string | null;
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
  status: PolicyEvaluationStatus;
  status_timestamps: string;
  result_count: string;
  hold: PolicyHold;
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
