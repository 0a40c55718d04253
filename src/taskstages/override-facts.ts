import type { OverrideStageFacts } from '../shared/override-rule.js';
import type { PolicyEvaluationRow } from './policy-evaluations.repository.js';
import type { OverrideRow, TaskResultRow, TaskStageRow } from './task-stages.repository.js';

/**
 * A stage's rows as the override rule (shared/override-rule.ts) reads them: its status, its results' enforcement
 * and required approvals, what its policy evaluations hold, and who overrode it so far.
 */
export function overrideFactsOf(
  stage: TaskStageRow,
  results: readonly TaskResultRow[],
  evaluations: readonly Pick<PolicyEvaluationRow, 'hold'>[],
  overrides: readonly Pick<OverrideRow, 'overridden_by'>[],
): OverrideStageFacts {
  return {
    status: stage.status,
    results: results.map((result) => ({ status: result.status, enforcementLevel: result.enforcement_level, requiredApprovals: Number(result.required_approvals) })),
    policyHolds: evaluations.map((evaluation) => String(evaluation.hold)),
    workspaceRequiredApprovals: Number(stage.required_approvals),
    overriders: overrides.map((override) => override.overridden_by),
  };
}
