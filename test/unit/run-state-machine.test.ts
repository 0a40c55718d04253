import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { TaskStageName } from '../../src/db/schema.js';
import type { StageStatus } from '../../src/shared/task-stage-statuses.js';
import { nextStep, runFacts, type StageSnapshot } from '../../src/runs/run-next-step.js';
import {
  RUN_EVENTS, RUN_STATUSES, TERMINAL_STATUSES, isFinished, transition, type RunEvent, type RunFacts, type RunStatus,
} from '../../src/runs/run-state-machine.js';

type Table = Partial<Record<RunStatus, Partial<Record<RunEvent, RunStatus | null>>>>;

const NO_STAGES: RunFacts = { planOnly: false, stages: new Set() };
const ALL_STAGES: RunFacts = { planOnly: false, stages: new Set(['pre_plan', 'post_plan', 'pre_apply', 'post_apply']) };
const PLAN_ONLY: RunFacts = { planOnly: true, stages: new Set() };
/** A plan-only run given apply stages anyway: they must be ignored. */
const PLAN_ONLY_ALL_STAGES: RunFacts = { planOnly: true, stages: new Set(['pre_plan', 'post_plan', 'pre_apply', 'post_apply']) };

/** Every allowed transition of a run without task stages; anything not listed is not allowed. */
const WITHOUT_STAGES: Table = {
  pending: { queue: 'plan_queued', discard: 'discarded', cancel: 'canceled', error: 'errored' },
  plan_queued: { start_plan: 'planning', cancel: 'canceled', error: 'errored' },
  pre_plan_running: { stage_passed: 'pre_plan_completed', stage_needs_override: 'pre_plan_awaiting_decision', stage_failed: 'errored', cancel: 'canceled', error: 'errored' },
  pre_plan_completed: { start_plan: 'planning', cancel: 'canceled', error: 'errored' },
  pre_plan_awaiting_decision: { stage_passed: 'pre_plan_completed', stage_failed: 'errored', discard: 'discarded', error: 'errored' },
  planning: { plan_finished: 'planned', cancel: 'canceled', error: 'errored' },
  planned: { confirm: 'confirmed', discard: 'discarded', error: 'errored' },
  post_plan_running: { stage_passed: 'post_plan_completed', stage_needs_override: 'post_plan_awaiting_decision', stage_failed: 'errored', cancel: 'canceled', error: 'errored' },
  post_plan_completed: { confirm: 'confirmed', discard: 'discarded', error: 'errored' },
  post_plan_awaiting_decision: { stage_passed: 'post_plan_completed', stage_failed: 'errored', discard: 'discarded', error: 'errored' },
  planned_and_finished: {},
  confirmed: { queue_apply: 'apply_queued', cancel: 'canceled', error: 'errored' },
  pre_apply_running: { stage_passed: 'pre_apply_completed', stage_needs_override: 'pre_apply_awaiting_decision', stage_failed: 'errored', cancel: 'canceled', error: 'errored' },
  pre_apply_completed: { queue_apply: 'apply_queued', cancel: 'canceled', error: 'errored' },
  pre_apply_awaiting_decision: { stage_passed: 'pre_apply_completed', stage_failed: 'errored', discard: 'discarded', error: 'errored' },
  apply_queued: { start_apply: 'applying', cancel: 'canceled', error: 'errored' },
  applying: { apply_finished: 'applied', cancel: 'canceled', error: 'errored' },
  applied: {},
  post_apply_running: { stage_passed: 'post_apply_completed', stage_needs_override: 'post_apply_awaiting_decision', stage_failed: 'errored', cancel: 'canceled', error: 'errored' },
  post_apply_completed: {},
  post_apply_awaiting_decision: { stage_passed: 'post_apply_completed', stage_failed: 'errored', discard: 'discarded', error: 'errored' },
  discarded: {},
  errored: {},
  canceled: {},
};

/** With all four stages: stages are entered instead of skipped; `planned` and `applied` become busy, not waiting or done. */
const WITH_ALL_STAGES: Table = {
  plan_queued: { start_stage: 'pre_plan_running', start_plan: null },
  planned: { start_stage: 'post_plan_running', confirm: null, discard: null, cancel: 'canceled' },
  confirmed: { start_stage: 'pre_apply_running', queue_apply: null },
  applied: { start_stage: 'post_apply_running', cancel: 'canceled', error: 'errored' },
};

/** Plan-only without stages: the plan ends the run; nothing to confirm, discard or cancel once planned. */
const PLAN_ONLY_WITHOUT_STAGES: Table = {
  planned: { confirm: null, discard: null, finish_plan_only: 'planned_and_finished' },
  post_plan_completed: { confirm: null, discard: null, finish_plan_only: 'planned_and_finished' },
};

/** Plan-only with every stage: pre- and post-plan stages run; the apply stages do not exist for it. */
const PLAN_ONLY_WITH_ALL_STAGES: Table = {
  plan_queued: { start_stage: 'pre_plan_running', start_plan: null },
  planned: { start_stage: 'post_plan_running', confirm: null, discard: null, cancel: 'canceled' },
  post_plan_completed: { confirm: null, discard: null, finish_plan_only: 'planned_and_finished' },
};

function merged(...tables: Table[]): Table {
  const result: Table = {};
  for (const status of RUN_STATUSES) result[status] = Object.assign({}, ...tables.map((table) => table[status] ?? {}));
  return result;
}

function assertExhaustive(facts: RunFacts, table: Table): void {
  let checked = 0;
  for (const status of RUN_STATUSES) {
    for (const event of RUN_EVENTS) {
      const expected = table[status]?.[event] ?? null;
      assert.equal(transition(status, event, facts), expected, `${status} × ${event}`);
      checked++;
    }
  }
  assert.equal(checked, RUN_STATUSES.length * RUN_EVENTS.length);
}

describe('run state machine: every status × every event', () => {
  it('has the 24 statuses of the contract', () => {
    assert.equal(RUN_STATUSES.length, 24);
  });

  it('without task stages', () => assertExhaustive(NO_STAGES, WITHOUT_STAGES));
  it('with all four task stages', () => assertExhaustive(ALL_STAGES, merged(WITHOUT_STAGES, WITH_ALL_STAGES)));
  it('plan-only without task stages', () => assertExhaustive(PLAN_ONLY, merged(WITHOUT_STAGES, PLAN_ONLY_WITHOUT_STAGES)));
  it('plan-only with all four stages ignores the apply stages', () =>
    assertExhaustive(PLAN_ONLY_ALL_STAGES, merged(WITHOUT_STAGES, PLAN_ONLY_WITH_ALL_STAGES)));

  it('enters only the stages the run has (one stage at a time)', () => {
    for (const stage of ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] as TaskStageName[]) {
      const facts: RunFacts = { planOnly: false, stages: new Set([stage]) };
      const entries = RUN_STATUSES.flatMap((status) => {
        const to = transition(status, 'start_stage', facts);
        return to ? [[status, to]] : [];
      });
      const from = { pre_plan: 'plan_queued', post_plan: 'planned', pre_apply: 'confirmed', post_apply: 'applied' }[stage];
      assert.deepEqual(entries, [[from, `${stage}_running`]]);
    }
  });

  it('terminal statuses have no way out, and finished runs cannot error', () => {
    for (const facts of [NO_STAGES, ALL_STAGES, PLAN_ONLY]) {
      for (const status of TERMINAL_STATUSES) {
        assert.ok(isFinished(status, facts));
        for (const event of RUN_EVENTS) assert.equal(transition(status, event, facts), null, `${status} × ${event}`);
      }
    }
    assert.ok(isFinished('applied', NO_STAGES));
    assert.ok(!isFinished('applied', ALL_STAGES), 'a post-apply stage still follows');
  });
});

const stageArbitrary = fc.subarray(['pre_plan', 'post_plan', 'pre_apply', 'post_apply'] as TaskStageName[]);

describe('run state machine: properties', () => {
  it('random event sequences stay inside the machine; plan-only runs never reach an apply status', () => {
    const applyStatuses = new Set<RunStatus>(['confirmed', 'pre_apply_running', 'pre_apply_completed', 'pre_apply_awaiting_decision', 'apply_queued', 'applying', 'applied', 'post_apply_running', 'post_apply_completed', 'post_apply_awaiting_decision']);
    fc.assert(
      fc.property(fc.boolean(), stageArbitrary, fc.array(fc.constantFrom(...RUN_EVENTS), { maxLength: 60 }), (planOnly, stages, events) => {
        const facts: RunFacts = { planOnly, stages: new Set(stages) };
        let status: RunStatus = 'pending';
        for (const event of events) {
          const to = transition(status, event, facts);
          if (!to) continue;
          assert.ok((RUN_STATUSES as readonly string[]).includes(to));
          if (event === 'start_stage') assert.ok(stages.some((stage) => to === `${stage}_running`), `entered ${to} without that stage`);
          status = to;
          if (planOnly) assert.ok(!applyStatuses.has(status), `plan-only run reached ${status}`);
        }
      }),
    );
  });

  it('run progress alone (stages passing, auto-apply) always finishes, in run order, through every stage it has', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), stageArbitrary, (planOnly, autoApply, stages) => {
        const snapshots: StageSnapshot[] = stages.map((stage) => ({ id: `ts-${stage}`, stage, status: 'pending' }));
        let status: RunStatus = 'pending';
        const entered: string[] = [];
        for (let steps = 0; steps < 100; steps++) {
          const step = nextStep({ status, planOnly, autoApply, agent: false, planHasChanges: true }, snapshots);
          if (step.kind === 'wait') {
            if (step.reason === 'task-stage') {
              // The task stage side passes the stage and reports back.
              snapshots.find((stage) => `${stage.stage}_running` === status)!.status = 'passed';
              continue;
            }
            break;
          }
          if (step.kind === 'enter-stage') entered.push(step.to);
          status = step.kind === 'execute-plan' ? 'planned' : step.kind === 'execute-apply' ? 'applied' : step.to;
        }
        // Apply stages are reached only by runs that apply: not plan-only, and (with nobody confirming here) auto-apply.
        const reachesApply = !planOnly && autoApply;
        const expectedStages = stages.filter((stage) => reachesApply || !(stage === 'pre_apply' || stage === 'post_apply'));
        const order = ['pre_plan', 'post_plan', 'pre_apply', 'post_apply'];
        assert.deepEqual(entered, order.filter((stage) => expectedStages.includes(stage as TaskStageName)).map((stage) => `${stage}_running`));
        if (planOnly) assert.equal(status, 'planned_and_finished');
        else if (autoApply) assert.equal(status, stages.includes('post_apply') ? 'post_apply_completed' : 'applied');
        else assert.equal(status, stages.includes('post_plan') ? 'post_plan_completed' : 'planned', 'waits for confirmation');
      }),
    );
  });
});

describe('run next step', () => {
  const run = (status: RunStatus, extra: { planOnly?: boolean; autoApply?: boolean; agent?: boolean; planHasChanges?: boolean } = {}) => ({
    status, planOnly: false, autoApply: false, agent: false, planHasChanges: true, ...extra,
  });
  const stage = (name: TaskStageName, status: StageStatus): StageSnapshot => ({ id: `ts-${name}`, stage: name, status });

  it('maps the stage status to the run', () => {
    const running = run('post_plan_running');
    assert.deepEqual(nextStep(running, [stage('post_plan', 'pending')]), { kind: 'wait', reason: 'task-stage' });
    assert.deepEqual(nextStep(running, [stage('post_plan', 'running')]), { kind: 'wait', reason: 'task-stage' });
    assert.deepEqual(nextStep(running, [stage('post_plan', 'passed')]), { kind: 'transition', event: 'stage_passed', to: 'post_plan_completed' });
    assert.deepEqual(nextStep(running, [stage('post_plan', 'awaiting_override')]), { kind: 'transition', event: 'stage_needs_override', to: 'post_plan_awaiting_decision' });
    for (const status of ['errored', 'unreachable', 'failed', 'canceled'] as const) {
      assert.deepEqual(nextStep(running, [stage('post_plan', status)]), { kind: 'transition', event: 'stage_failed', to: 'errored' }, status);
    }
  });

  it('a pending run waits for its turn in the workspace queue, and takes it when nobody is ahead', () => {
    assert.deepEqual(nextStep({ ...run('pending'), waitsForTurn: true }, []), { kind: 'wait', reason: 'queue' });
    assert.deepEqual(nextStep({ ...run('pending'), waitsForTurn: false }, []), { kind: 'transition', event: 'queue', to: 'plan_queued' });
    assert.deepEqual(nextStep(run('pending'), []), { kind: 'transition', event: 'queue', to: 'plan_queued' });
  });

  it('waits while a stage awaits an override, and continues once the override passed it', () => {
    const awaiting = run('post_plan_awaiting_decision');
    assert.deepEqual(nextStep(awaiting, [stage('post_plan', 'awaiting_override')]), { kind: 'wait', reason: 'override' });
    assert.deepEqual(nextStep(awaiting, [stage('post_plan', 'running')]), { kind: 'wait', reason: 'override' });
    assert.deepEqual(nextStep(awaiting, [stage('post_plan', 'passed')]), { kind: 'transition', event: 'stage_passed', to: 'post_plan_completed' });
  });

  it('enters a stage with its id, executes the phases, and waits for confirmation unless auto-apply', () => {
    assert.deepEqual(nextStep(run('plan_queued'), [stage('pre_plan', 'pending')]), { kind: 'enter-stage', stageId: 'ts-pre_plan', to: 'pre_plan_running' });
    assert.deepEqual(nextStep(run('planning'), []), { kind: 'execute-plan' });
    assert.deepEqual(nextStep(run('applying'), []), { kind: 'execute-apply' });
    assert.deepEqual(nextStep(run('planned'), []), { kind: 'wait', reason: 'confirmation' });
    assert.deepEqual(nextStep(run('planned', { autoApply: true }), []), { kind: 'transition', event: 'confirm', to: 'confirmed' });
    assert.deepEqual(nextStep(run('post_plan_completed', { autoApply: true }), [stage('post_plan', 'passed')]), { kind: 'transition', event: 'confirm', to: 'confirmed' });
    assert.deepEqual(nextStep(run('planned', { planOnly: true, autoApply: true }), []), { kind: 'transition', event: 'finish_plan_only', to: 'planned_and_finished' });
    assert.deepEqual(nextStep(run('applied'), []), { kind: 'wait', reason: 'finished' });
    assert.deepEqual(nextStep(run('canceled'), [stage('post_plan', 'canceled')]), { kind: 'wait', reason: 'finished' });
  });

  it('agent mode: waits for the pipeline to claim and report each phase, never executes one itself', () => {
    const agent = { agent: true, planHasChanges: true };
    assert.deepEqual(nextStep(run('plan_queued', agent), []), { kind: 'wait', reason: 'agent' });
    assert.deepEqual(nextStep(run('plan_queued', agent), [stage('pre_plan', 'pending')]), { kind: 'enter-stage', stageId: 'ts-pre_plan', to: 'pre_plan_running' });
    assert.deepEqual(nextStep(run('pre_plan_completed', agent), [stage('pre_plan', 'passed')]), { kind: 'wait', reason: 'agent' });
    assert.deepEqual(nextStep(run('planning', agent), []), { kind: 'wait', reason: 'agent' });
    assert.deepEqual(nextStep(run('planned', agent), []), { kind: 'wait', reason: 'confirmation' });
    assert.deepEqual(nextStep(run('confirmed', agent), []), { kind: 'transition', event: 'queue_apply', to: 'apply_queued' });
    assert.deepEqual(nextStep(run('apply_queued', agent), []), { kind: 'wait', reason: 'agent' });
    assert.deepEqual(nextStep(run('applying', agent), []), { kind: 'wait', reason: 'agent' });
  });

  it('a plan without changes ends the run planned_and_finished after its post-plan stage, in agent and remote mode', () => {
    const noChanges = { agent: true, planHasChanges: false, autoApply: true };
    assert.deepEqual(nextStep(run('planned', noChanges), []), { kind: 'transition', event: 'finish_plan_only', to: 'planned_and_finished' });
    assert.deepEqual(nextStep(run('planned', noChanges), [stage('post_plan', 'pending')]), { kind: 'enter-stage', stageId: 'ts-post_plan', to: 'post_plan_running' });
    assert.deepEqual(nextStep(run('post_plan_completed', noChanges), [stage('post_plan', 'passed'), stage('pre_apply', 'pending')]), {
      kind: 'transition', event: 'finish_plan_only', to: 'planned_and_finished',
    });
    assert.equal(transition('planned', 'confirm', runFacts({ planOnly: false, agent: true, planHasChanges: false }, [])), null, 'nothing to apply');
    assert.equal(transition('planned', 'discard', runFacts({ planOnly: false, agent: true, planHasChanges: false }, [])), null, 'about to finish');
    // Remote mode too (issue 34 item 5): the no-op executor's empty plans end the run, as HCP's do.
    assert.deepEqual(nextStep(run('planned', { planHasChanges: false }), []), { kind: 'transition', event: 'finish_plan_only', to: 'planned_and_finished' });
    assert.deepEqual(nextStep(run('planned', { planHasChanges: true }), []), { kind: 'wait', reason: 'confirmation' });
  });

  it('errors a run that is in a stage status it has no stage for, instead of hanging', () => {
    assert.deepEqual(nextStep(run('pre_apply_running'), []), { kind: 'transition', event: 'stage_failed', to: 'errored' });
  });
});
