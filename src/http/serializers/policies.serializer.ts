import type { Resource } from '../jsonapi.js';
import { parseTimestamps } from '../../core/status-timestamps.js';
import type { PolicySetView } from '../../policies/policies.service.js';
import type { PolicySummary } from '../../policies/policies.repository.js';
import type { PolicyEvaluationRow, PolicySetOutcomeRow } from '../../taskstages/policy-evaluations.repository.js';

/** Type `policies`, as go-tfe reads it: `enforce` (the older form) beside `enforcement-level`. */
export function policyResource(policy: PolicySummary): Resource {
  return {
    id: policy.id,
    type: 'policies',
    attributes: {
      name: policy.name,
      description: policy.description,
      kind: policy.kind,
      // A Sentinel policy has no query (HCP serves null for it).
      query: policy.kind === 'sentinel' ? null : policy.query,
      'enforcement-level': policy.enforcement_level,
      // The file the policy enforces, once there is one (HCP lists none before the upload).
      enforce: policy.uploaded ? [{ path: `${policy.name}.${policy.kind === 'sentinel' ? 'sentinel' : 'rego'}`, mode: policy.enforcement_level }] : [],
      'policy-set-count': policy.policy_set_count,
      'created-at': policy.created_at,
      'updated-at': policy.updated_at,
    },
    relationships: {
      organization: { data: { id: policy.organization_name, type: 'organizations' } },
    },
    links: {
      self: `/api/v2/policies/${policy.id}`,
      ...(policy.uploaded ? { download: `/api/v2/policies/${policy.id}/download` } : { upload: `/api/v2/policies/${policy.id}/upload` }),
    },
  };
}

/** Type `policy-sets` (OPA, API-managed: no VCS, no versions). */
export function policySetResource({ set, relations, versions }: PolicySetView): Resource {
  return {
    id: set.id,
    type: 'policy-sets',
    attributes: {
      name: set.name,
      description: set.description,
      kind: set.kind,
      global: set.global === 1,
      overridable: set.overridable === 1,
      'agent-enabled': false,
      'policy-tool-version': null,
      'policies-path': null,
      'policy-count': relations.policyIds.length,
      'workspace-count': set.global === 1 ? 0 : relations.workspaceIds.length,
      'project-count': 0,
      'created-at': set.created_at,
      'updated-at': set.updated_at,
    },
    relationships: {
      organization: { data: { id: set.organization_name, type: 'organizations' } },
      policies: { data: relations.policyIds.map((id) => ({ id, type: 'policies' })) },
      workspaces: { data: relations.workspaceIds.map((id) => ({ id, type: 'workspaces' })) },
      'workspace-exclusions': { data: relations.excludedWorkspaceIds.map((id) => ({ id, type: 'workspaces' })) },
      projects: { data: [] },
      ...(versions.newest ? { 'newest-version': { data: { id: versions.newest.id, type: 'policy-set-versions' } } } : {}),
      ...(versions.current ? { 'current-version': { data: { id: versions.current.id, type: 'policy-set-versions' } } } : {}),
    },
    links: { self: `/api/v2/policy-sets/${set.id}` },
  };
}

/** Type `policy-evaluations`, attached to its task stage as `policy-attachable`. */
export function policyEvaluationResource(evaluation: PolicyEvaluationRow): Resource {
  return {
    id: evaluation.id,
    type: 'policy-evaluations',
    attributes: {
      status: evaluation.status,
      'policy-kind': 'opa',
      'status-timestamps': parseTimestamps(evaluation.status_timestamps),
      'result-count': JSON.parse(evaluation.result_count) as unknown,
      'created-at': evaluation.created_at,
      'updated-at': evaluation.updated_at,
    },
    relationships: {
      'policy-attachable': { data: { id: evaluation.task_stage_id, type: 'task-stages' } },
      'policy-set-outcomes': { links: { related: `/api/v2/policy-evaluations/${evaluation.id}/policy-set-outcomes` } },
    },
    links: { self: `/api/v2/policy-evaluations/${evaluation.id}` },
  };
}

/** Type `policy-set-outcomes`: the set as it was judged, with each policy's outcome (HCP spells `result_count` so). */
export function policySetOutcomeResource(outcome: PolicySetOutcomeRow): Resource {
  return {
    id: outcome.id,
    type: 'policy-set-outcomes',
    attributes: {
      outcomes: JSON.parse(outcome.outcomes) as unknown,
      error: outcome.error,
      overridable: outcome.overridable === 1,
      'policy-set-name': outcome.policy_set_name,
      'policy-set-description': outcome.policy_set_description,
      result_count: JSON.parse(outcome.result_count) as unknown,
    },
    relationships: {
      'policy-evaluation': { data: { id: outcome.policy_evaluation_id, type: 'policy-evaluations' } },
    },
    links: { self: `/api/v2/policy-set-outcomes/${outcome.id}` },
  };
}
