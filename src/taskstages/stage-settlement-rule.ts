/**
 * THE settlement rule: a stage's status from one list of member facts. A member is anything that holds a stage
 * (a run task result, a policy evaluation; a manual step or a cost estimate later): each says whether it is
 * still open, was canceled, or what it asks of the stage now that it is final. Pure, no I/O; the facts of each
 * kind are derived by an exhaustive table over its typed statuses (below), so a new status, or a new kind
 * without its table, does not compile.
 */
import type { ResultStatus } from '../shared/task-stage-statuses.js';
import type { EnforcementLevel, PolicyEvaluationStatus, PolicyFacts } from './member-statuses.js';

/** The kinds of things that hold a stage; `Record<MemberKind, …>` wherever each needs its own code. */
export const MEMBER_KINDS = ['task-result', 'policy-evaluation'] as const;
export type MemberKind = (typeof MEMBER_KINDS)[number];

/** What a final member asks of its stage: nothing, a person's override, a failure nobody may override, an error, or that it never ran. */
export type StageAsk = 'nothing' | 'override' | 'failure' | 'error' | 'unreachable';

export type MemberFacts =
  | { kind: MemberKind; state: 'open' }
  | { kind: MemberKind; state: 'canceled' }
  | { kind: MemberKind; state: 'final'; asks: StageAsk };

export type SettledStatus = 'running' | 'passed' | 'failed' | 'awaiting_override' | 'errored' | 'unreachable' | 'canceled';

/** The asks in the order they decide the stage: the first one any member makes wins. */
const DECIDING_ASKS: ReadonlyArray<[Exclude<StageAsk, 'nothing'>, SettledStatus]> = [
  ['failure', 'failed'],
  ['override', 'awaiting_override'],
  ['error', 'errored'],
  ['unreachable', 'unreachable'],
];

/**
 * `running` while any member is open; `canceled` if any was (the run was canceled or discarded); else the
 * first of failure, override, error, unreachable that any member asks for; else `passed` (a stage with no
 * members passes: there is nothing to wait for).
 */
export function settledStatus(members: readonly MemberFacts[]): SettledStatus {
  if (members.some((member) => member.state === 'open')) return 'running';
  if (members.some((member) => member.state === 'canceled')) return 'canceled';
  const asks = new Set(members.map((member) => (member.state === 'final' ? member.asks : 'nothing')));
  return DECIDING_ASKS.find(([ask]) => asks.has(ask))?.[1] ?? 'passed';
}

/** A run task result's facts, by status; an advisory result asks nothing, whatever its status. */
const RESULT_FACTS: Record<ResultStatus, (level: EnforcementLevel) => MemberFacts> = {
  pending: () => ({ kind: 'task-result', state: 'open' }),
  running: () => ({ kind: 'task-result', state: 'open' }),
  canceled: () => ({ kind: 'task-result', state: 'canceled' }),
  passed: () => ({ kind: 'task-result', state: 'final', asks: 'nothing' }),
  failed: (level) => ({ kind: 'task-result', state: 'final', asks: level === 'mandatory' ? 'override' : 'nothing' }),
  errored: (level) => ({ kind: 'task-result', state: 'final', asks: level === 'mandatory' ? 'error' : 'nothing' }),
  unreachable: (level) => ({ kind: 'task-result', state: 'final', asks: level === 'mandatory' ? 'unreachable' : 'nothing' }),
};

export function resultMember(result: { status: ResultStatus; enforcementLevel: EnforcementLevel }): MemberFacts {
  return RESULT_FACTS[result.status](result.enforcementLevel);
}

/** What a finished policy evaluation's `hold` asks (policies/policy-outcomes.ts). */
const HOLD_ASKS: Record<PolicyFacts['hold'], StageAsk> = { none: 'nothing', override: 'override', fail: 'failure', error: 'error' };

/** A policy evaluation's facts, by status; once final, its `hold` says what it asks. */
const EVALUATION_STATES: Record<PolicyEvaluationStatus, 'open' | 'canceled' | 'final'> = {
  pending: 'open',
  running: 'open',
  canceled: 'canceled',
  passed: 'final',
  failed: 'final',
  errored: 'final',
  overridden: 'final',
};

export function evaluationMember(evaluation: PolicyFacts): MemberFacts {
  const state = EVALUATION_STATES[evaluation.status];
  return state === 'final' ? { kind: 'policy-evaluation', state, asks: HOLD_ASKS[evaluation.hold] } : { kind: 'policy-evaluation', state };
}
