import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { positionOf, type RunSnapshot } from '../../src/pipeline/run-position.js';

const run = (status: string, stages: Array<[string, string]> = [], confirmable = false): RunSnapshot => ({
  id: 'run-1',
  status,
  confirmable,
  planId: 'plan-1',
  applyId: 'apply-1',
  stages: stages.map(([stage, stageStatus], index) => ({ id: `ts-${index}`, stage, status: stageStatus })),
  plan: undefined,
  positionInQueue: undefined,
  workspaceId: 'ws-1',
  waitToken: undefined,
});

describe('pipeline: where a run stands for the pipeline', () => {
  it('errored, canceled and discarded runs failed', () => {
    for (const status of ['errored', 'canceled', 'discarded']) assert.equal(positionOf(run(status)).kind, 'failed');
  });

  it('a stage awaiting an override, unless it was just overridden', () => {
    assert.deepEqual(positionOf(run('post_plan_awaiting_decision', [['post_plan', 'awaiting_override']])), { kind: 'awaiting-override', stage: 'post_plan' });
    assert.equal(positionOf(run('pre_apply_awaiting_decision')).kind, 'awaiting-override');
    assert.equal(positionOf(run('post_plan_awaiting_decision', [['post_plan', 'running']])).kind, 'in-progress');
    assert.equal(positionOf(run('post_plan_awaiting_decision', [['post_plan', 'passed']])).kind, 'in-progress');
  });

  it('the plan is claimable once no pre-plan stage is ahead of it', () => {
    assert.equal(positionOf(run('plan_queued')).kind, 'plan-claimable');
    assert.equal(positionOf(run('plan_queued', [['pre_plan', 'pending']])).kind, 'in-progress');
    assert.equal(positionOf(run('pre_plan_running', [['pre_plan', 'running']])).kind, 'in-progress');
    assert.equal(positionOf(run('pre_plan_completed', [['pre_plan', 'passed']])).kind, 'plan-claimable');
    assert.equal(positionOf(run('pending')).kind, 'in-progress');
  });

  it('after the plan: awaiting confirmation only when the server says the run is confirmable', () => {
    assert.equal(positionOf(run('post_plan_completed', [], true)).kind, 'awaiting-confirmation');
    assert.equal(positionOf(run('planned', [], true)).kind, 'awaiting-confirmation');
    assert.equal(positionOf(run('planned', [['post_plan', 'pending']])).kind, 'in-progress', 'the post-plan stage comes first');
    assert.equal(positionOf(run('post_plan_completed')).kind, 'in-progress', 'moving on to planned_and_finished or an auto-apply');
    assert.equal(positionOf(run('planned_and_finished')).kind, 'planned-and-finished');
  });

  it('apply: claimable when queued, applied once the post-apply stage (if any) is done', () => {
    for (const status of ['confirmed', 'pre_apply_running', 'pre_apply_completed']) assert.equal(positionOf(run(status)).kind, 'in-progress');
    assert.equal(positionOf(run('apply_queued')).kind, 'apply-claimable');
    assert.equal(positionOf(run('applying')).kind, 'applying');
    assert.equal(positionOf(run('applied')).kind, 'applied');
    assert.equal(positionOf(run('applied', [['post_apply', 'pending']])).kind, 'in-progress');
    assert.equal(positionOf(run('post_apply_completed', [['post_apply', 'passed']])).kind, 'applied');
    assert.equal(positionOf(run('some_future_status')).kind, 'in-progress');
  });
});
