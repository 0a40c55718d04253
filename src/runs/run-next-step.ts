import type { TaskStageName } from '../db/schema.js';
import type { StageStatus } from '../shared/task-stage-statuses.js';
import {
  awaitsConfirmation, endsAfterPlan, isFinished, stageEnteredFrom, stageOfStatus, transition, type RunEvent, type RunFacts, type RunStatus,
} from './run-state-machine.js';

/**
 * What run progress does next for a run, as a pure function of the run and its task stages. The
 * step function (run-progress.ts) carries the answer out and asks again until the run waits.
 */

export interface StageSnapshot {
  id: string;
  stage: TaskStageName;
  status: StageStatus;
}

export interface RunSnapshot {
  status: RunStatus;
  planOnly: boolean;
  autoApply: boolean;
  /** Agent mode: a pipeline claims and reports the plan and the apply (agent-phases.service.ts); run progress waits for it. */
  agent: boolean;
  /** The plan's has-changes (false until a plan finished). */
  planHasChanges: boolean;
  /** A pending run with runs ahead of it in its workspace's queue (run-queue.ts): it waits. Absent: false. */
  waitsForTurn?: boolean;
}

export type RunStep =
  | { kind: 'transition'; event: RunEvent; to: RunStatus }
  /** Set the run to `<stage>_running` and start the stage, in one transaction. */
  | { kind: 'enter-stage'; stageId: string; to: RunStatus }
  | { kind: 'execute-plan' }
  | { kind: 'execute-apply' }
  | { kind: 'wait'; reason: 'task-stage' | 'override' | 'confirmation' | 'finished' | 'agent' | 'queue' };

export function runFacts(run: Omit<RunSnapshot, 'status' | 'autoApply'>, stages: readonly Pick<StageSnapshot, 'stage'>[]): RunFacts {
  return { planOnly: run.planOnly, stages: new Set(stages.map((stage) => stage.stage)), noChanges: !run.planHasChanges };
}

/**
 * How a settled stage moves the run (passed goes on, awaiting_override waits, any other end fails it);
 * undefined while the stage is still working.
 */
export function eventForStageStatus(stageStatus: StageStatus, runPhase: 'running' | 'awaiting_decision'): RunEvent | undefined {
  return STAGE_EVENTS[stageStatus](runPhase);
}

/** One entry per stage status, so a new status does not compile until it says what it does to the run. */
const STAGE_EVENTS: Record<StageStatus, (runPhase: 'running' | 'awaiting_decision') => RunEvent | undefined> = {
  // Still working (running also while an override is being recorded).
  pending: () => undefined,
  running: () => undefined,
  passed: () => 'stage_passed',
  awaiting_override: (runPhase) => (runPhase === 'running' ? 'stage_needs_override' : undefined),
  errored: () => 'stage_failed',
  unreachable: () => 'stage_failed',
  failed: () => 'stage_failed',
  // A stage canceled while its run goes on has nobody left to finish it: the run errors rather than hang.
  canceled: () => 'stage_failed',
};

function step(status: RunStatus, event: RunEvent, facts: RunFacts): RunStep {
  const to = transition(status, event, facts);
  if (!to) throw new Error(`run progress chose '${event}', which is not allowed in '${status}'`);
  return { kind: 'transition', event, to };
}

export function nextStep(run: RunSnapshot, stages: readonly StageSnapshot[]): RunStep {
  const facts = runFacts(run, stages);
  const { status } = run;
  if (isFinished(status, facts)) return { kind: 'wait', reason: 'finished' };

  const entering = stageEnteredFrom(status, facts);
  if (entering) {
    const stage = stages.find((candidate) => candidate.stage === entering)!;
    return { kind: 'enter-stage', stageId: stage.id, to: transition(status, 'start_stage', facts)! };
  }

  const inStage = stageOfStatus(status);
  if (inStage && inStage.phase !== 'completed') {
    const stage = stages.find((candidate) => candidate.stage === inStage.stage);
    if (!stage) return step(status, 'stage_failed', facts);
    const event = eventForStageStatus(stage.status, inStage.phase);
    if (!event) return { kind: 'wait', reason: inStage.phase === 'running' ? 'task-stage' : 'override' };
    return step(status, event, facts);
  }

  switch (status) {
    case 'pending':
      if (run.waitsForTurn === true) return { kind: 'wait', reason: 'queue' };
      return step(status, 'queue', facts);
    case 'plan_queued':
    case 'pre_plan_completed':
      // Agent mode: the pipeline's claim starts the plan (agent-phases.service.ts).
      if (run.agent) return { kind: 'wait', reason: 'agent' };
      return step(status, 'start_plan', facts);
    case 'planning':
      // Agent mode: the pipeline's report ends it (or the phase timeout does).
      return run.agent ? { kind: 'wait', reason: 'agent' } : { kind: 'execute-plan' };
    case 'planned':
    case 'post_plan_completed':
      if (endsAfterPlan(facts)) return step(status, 'finish_plan_only', facts);
      if (awaitsConfirmation(status, facts) && run.autoApply) return step(status, 'confirm', facts);
      return { kind: 'wait', reason: 'confirmation' };
    case 'confirmed':
    case 'pre_apply_completed':
      return step(status, 'queue_apply', facts);
    case 'apply_queued':
      if (run.agent) return { kind: 'wait', reason: 'agent' };
      return step(status, 'start_apply', facts);
    case 'applying':
      return run.agent ? { kind: 'wait', reason: 'agent' } : { kind: 'execute-apply' };
    // Reached only by an inconsistent run: a stage status whose stage row is gone or done (handled above when it
    // holds), an apply that neither enters its stage nor finishes, a final status isFinished did not end.
    // Erroring beats spinning. Listed, not a `default`, so a new status must say what it does.
    case 'pre_plan_running':
    case 'pre_plan_awaiting_decision':
    case 'post_plan_running':
    case 'post_plan_awaiting_decision':
    case 'pre_apply_running':
    case 'pre_apply_awaiting_decision':
    case 'post_apply_running':
    case 'post_apply_awaiting_decision':
    case 'post_apply_completed':
    case 'applied':
    case 'planned_and_finished':
    case 'discarded':
    case 'errored':
    case 'canceled':
      return step(status, 'error', facts);
  }
}
