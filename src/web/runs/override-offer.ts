/**
 * Whether the run page offers this reader Override on a stage that awaits one, and if not, why. The answer is
 * the server's own rule (src/shared/override-rule.ts, `decideOverride`), asked with what the stage document
 * says: the reader's right to override as the server computed it (`permissions.can-override`, which already
 * weighs what holds the stage), the stage's status, its failed mandatory results and policy evaluations, and
 * who overrode it so far (`overrides[].overrider`).
 * So someone who already counts is not offered a second Override that the server would refuse (409).
 */
import type { EnforcementLevel } from '../../shared/enforcement-levels.js';
import { decideOverride } from '../../shared/override-rule.js';
import type { PolicyEvaluationStatus } from '../../shared/policy-evaluation-statuses.js';
import type { ResultStatus, StageStatus } from '../../shared/task-stage-statuses.js';

export interface OfferStage {
  status: StageStatus;
  permissions?: { 'can-override'?: boolean; 'can-override-tasks'?: boolean; 'can-override-policy'?: boolean };
  requiredApprovals?: number;
  overriders: string[];
  results: { status: ResultStatus; enforcementLevel: EnforcementLevel }[];
  /** Each policy evaluation's status (`failed` holds the stage for an override, `errored` errors it). */
  evaluationStatuses: PolicyEvaluationStatus[];
}

/** An earlier approver as the console takes them: still counting (the server's approvals figure is the truth). */
const COUNTING = { actsAsPerson: true, isUser: true, readsRuns: true, isOwner: false, manageRunTasks: true, managePolicyOverrides: true } as const;

export type OverrideOffer = { offer: true } | { offer: false; reason: 'already-approved' | 'not-allowed' | 'not-awaiting' };

/** `me` is the reader as the server counts overriders: `user:<id>` for a person's token. */
export function overrideOffer(stage: OfferStage, me: string): OverrideOffer {
  // The rights are the server's answer for this reader; the rule then decides on the stage's status and on who counts.
  const may = stage.permissions?.['can-override'] === true;
  const required = stage.requiredApprovals ?? 1;
  const decision = decideOverride(
    { actsAsPerson: true, isUser: me.startsWith('user:'), readsRuns: true, isOwner: false, manageRunTasks: may, managePolicyOverrides: may, overrider: me },
    {
      status: stage.status,
      results: stage.results.map((result) => ({ ...result, requiredApprovals: required })),
      policyHolds: stage.evaluationStatuses.map((status) => (status === 'failed' ? 'override' : status === 'errored' ? 'error' : 'none')),
      workspaceRequiredApprovals: required,
      // Who approved so far, each taken to count still: the server's `can-override` already says whether this
      // reader's approval would count (rights, being a person, their own run), the rule here only who counted.
      overriders: stage.overriders.map((overrider) => ({ overrider, now: COUNTING })),
      runAuthor: null,
      preventSelfApproval: false,
    },
  );
  if (decision.kind === 'approved') return { offer: true };
  if (decision.kind === 'already-approved') return { offer: false, reason: 'already-approved' };
  if (decision.kind === 'not-awaiting') return { offer: false, reason: 'not-awaiting' };
  return { offer: false, reason: 'not-allowed' };
}
