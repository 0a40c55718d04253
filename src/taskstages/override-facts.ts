import type { ApproverStanding, OverrideStageFacts } from '../shared/override-rule.js';
import type { PolicyEvaluationRow } from './policy-evaluations.repository.js';
import type { OverrideRow, RunApprovalSettings, TaskResultRow, TaskStageRow } from './task-stages.repository.js';

/** Each earlier overrider's standing now (null: gone from the organization); worked out by the access layer's gate. */
export type ApproverStandings = ReadonlyMap<string, ApproverStanding | null>;

/** Works out the standings of these overrider keys in the stage's organization now (task-stages.service.ts). */
export type ApproverLookup = (overriders: readonly string[]) => Promise<ApproverStandings>;

/**
 * A stage's rows as the override rule (shared/override-rule.ts) reads them: its status, its results' enforcement
 * and required approvals, what its policy evaluations hold, who overrode it so far with their standing now,
 * its run's author and its workspace's prevent-self-approval.
 */
export function overrideFactsOf(
  stage: TaskStageRow,
  results: readonly TaskResultRow[],
  evaluations: readonly Pick<PolicyEvaluationRow, 'hold'>[],
  overrides: readonly Pick<OverrideRow, 'overridden_by'>[],
  approvers: ApproverStandings,
  settings: RunApprovalSettings | undefined,
): OverrideStageFacts {
  return {
    status: stage.status,
    results: results.map((result) => ({ status: result.status, enforcementLevel: result.enforcement_level, requiredApprovals: Number(result.required_approvals) })),
    policyHolds: evaluations.map((evaluation) => evaluation.hold),
    workspaceRequiredApprovals: Number(stage.required_approvals),
    overriders: overrides.map((override) => ({ overrider: override.overridden_by, now: approvers.get(override.overridden_by) ?? null })),
    runAuthor: settings?.authorUserId ? `user:${settings.authorUserId}` : null,
    preventSelfApproval: settings?.preventSelfApproval ?? true,
  };
}
