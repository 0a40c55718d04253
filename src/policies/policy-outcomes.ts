/**
 * How OPA's answers become HCP's policy outcomes, set outcomes and the evaluation's status, and what the
 * evaluation asks of its task stage. Pure functions of plain data (issue 29; CONTRACT.md section 8).
 *
 * - Each policy's query must give an array: empty passes, anything in it fails the policy (HCP's rule);
 *   something else, an undefined query or an engine error is `errored`, with the reason as its output.
 * - An advisory failure only warns. A mandatory failure holds the stage: `awaiting_override` when its set
 *   is overridable, `failed` when it is not. An errored mandatory policy, or a set that could not be judged at
 *   all, errors the stage (as an errored mandatory run task does).
 * - Sentinel policies are stored but never evaluated (Teamstage has no Sentinel): each is `errored` with
 *   SENTINEL_UNAVAILABLE, and its level decides what that does, as HCP's Sentinel levels mean: advisory only
 *   warns, soft-mandatory holds the stage for an override (HCP lets a person override it), hard-mandatory fails
 *   it (nobody may). A mandatory Sentinel policy thus never lets a run through unjudged.
 */
import type { QueryAnswer } from './opa-engine.js';

import type { PolicyLevel } from '../shared/enforcement-levels.js';
import type { PolicyHold } from '../shared/policy-evaluation-statuses.js';

export type { PolicyHold, PolicyLevel };

/** The outcome of every Sentinel policy: Teamstage evaluates policies with OPA only. */
export const SENTINEL_UNAVAILABLE = 'Sentinel is not available; use OPA';

/** Any level but advisory: a failure or error of it stops the run (unless overridden). */
export function isMandatory(level: string): boolean {
  return level !== 'advisory';
}
export type PolicyOutcomeStatus = 'passed' | 'failed' | 'errored';

/** HCP's outcome of one policy (attribute names as HCP spells them, snake_case inside `outcomes`). */
export interface PolicyOutcome {
  enforcement_level: PolicyLevel;
  query: string;
  status: PolicyOutcomeStatus;
  policy_name: string;
  description: string;
  output: Array<{ print: string }>;
}

export interface ResultCount {
  'advisory-failed': number;
  'mandatory-failed': number;
  passed: number;
  errored: number;
}

export interface SetOutcome {
  policySetId: string;
  policySetName: string;
  policySetDescription: string | null;
  overridable: boolean;
  /** The set could not be judged (no engine, no plan): every policy of it counts as errored. */
  error: string | null;
  outcomes: PolicyOutcome[];
  resultCount: ResultCount;
}

export function policyOutcome(
  policy: { name: string; description: string | null; query: string; level: PolicyLevel },
  answer: QueryAnswer,
): PolicyOutcome {
  const base = { enforcement_level: policy.level, query: policy.query, policy_name: policy.name, description: policy.description ?? '' };
  if (!answer.ok) return { ...base, status: 'errored', output: [{ print: answer.reason }] };
  const prints = answer.prints.map((print) => ({ print }));
  if (!answer.defined) return { ...base, status: 'errored', output: [...prints, { print: `the query ${policy.query} is undefined: the policy has no such rule` }] };
  if (!Array.isArray(answer.value)) {
    return { ...base, status: 'errored', output: [...prints, { print: `the query ${policy.query} must give an array, it gave ${typeName(answer.value)}` }] };
  }
  if (answer.value.length === 0) return { ...base, status: 'passed', output: prints };
  // Each element is a violation; strings are shown as they are, anything else as JSON (bounded).
  const violations = answer.value.slice(0, 100).map((item) => ({ print: typeof item === 'string' ? item : JSON.stringify(item).slice(0, 2000) }));
  return { ...base, status: 'failed', output: [...prints, ...violations] };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

export function countResults(outcomes: readonly PolicyOutcome[]): ResultCount {
  const count: ResultCount = { 'advisory-failed': 0, 'mandatory-failed': 0, passed: 0, errored: 0 };
  for (const outcome of outcomes) {
    if (outcome.status === 'passed') count.passed += 1;
    else if (outcome.status === 'errored') count.errored += 1;
    else if (isMandatory(outcome.enforcement_level)) count['mandatory-failed'] += 1;
    else count['advisory-failed'] += 1;
  }
  return count;
}

export function addCounts(counts: readonly ResultCount[]): ResultCount {
  const total: ResultCount = { 'advisory-failed': 0, 'mandatory-failed': 0, passed: 0, errored: 0 };
  for (const count of counts) {
    total['advisory-failed'] += count['advisory-failed'];
    total['mandatory-failed'] += count['mandatory-failed'];
    total.passed += count.passed;
    total.errored += count.errored;
  }
  return total;
}

/**
 * The evaluation's status and its hold on the stage, from its set outcomes. A hard failure (a set that is not
 * overridable) outweighs one a person may override, which outweighs an error: the strongest reason to stop wins.
 */
export function judgeEvaluation(sets: readonly SetOutcome[]): { status: 'passed' | 'failed' | 'errored'; hold: PolicyHold } {
  const mandatoryFailed = (set: SetOutcome) => set.outcomes.some((o) => isMandatory(o.enforcement_level) && o.status === 'failed');
  const erroredWith = (set: SetOutcome, level: PolicyLevel) => set.outcomes.some((o) => o.enforcement_level === level && o.status === 'errored');
  const erroredSet = (set: SetOutcome) => set.error !== null || erroredWith(set, 'mandatory');
  // An unjudged Sentinel policy: its status is `errored`, but its level holds the stage as HCP's levels do.
  const status = sets.some(mandatoryFailed) ? 'failed' : 'errored';
  if (sets.some((set) => !set.overridable && mandatoryFailed(set))) return { status: 'failed', hold: 'fail' };
  if (sets.some((set) => erroredWith(set, 'hard-mandatory'))) return { status, hold: 'fail' };
  if (sets.some(mandatoryFailed)) return { status: 'failed', hold: 'override' };
  if (sets.some((set) => erroredWith(set, 'soft-mandatory'))) return { status: 'errored', hold: 'override' };
  if (sets.some(erroredSet)) return { status: 'errored', hold: 'error' };
  return { status: 'passed', hold: 'none' };
}
