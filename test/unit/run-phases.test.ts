import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PHASE_STATUSES, mayMovePhases, phasesAfter, type PhaseStatus } from '../../src/runs/phase-status.js';
import { RUN_STATUSES } from '../../src/runs/run-state-machine.js';
import { timestampKey } from '../../src/core/status-timestamps.js';

describe('plan and apply follow their run', () => {
  it('through a whole applied run', () => {
    let phases = { plan: 'pending' as PhaseStatus, apply: 'pending' as PhaseStatus };
    const seen: string[] = [];
    for (const status of ['plan_queued', 'planning', 'planned', 'confirmed', 'apply_queued', 'applying', 'applied'] as const) {
      phases = phasesAfter(status, phases);
      seen.push(`${phases.plan}/${phases.apply}`);
    }
    assert.deepEqual(seen, [
      'queued/pending', 'running/pending', 'finished/pending', 'finished/pending', 'finished/queued', 'finished/running', 'finished/finished',
    ]);
  });

  it('a run that stops early: started phases share its fate, phases that never started are unreachable', () => {
    assert.deepEqual(phasesAfter('planned_and_finished', { plan: 'finished', apply: 'pending' }), { plan: 'finished', apply: 'unreachable' });
    assert.deepEqual(phasesAfter('errored', { plan: 'running', apply: 'pending' }), { plan: 'errored', apply: 'unreachable' });
    assert.deepEqual(phasesAfter('errored', { plan: 'finished', apply: 'running' }), { plan: 'finished', apply: 'errored' });
    assert.deepEqual(phasesAfter('errored', { plan: 'queued', apply: 'pending' }), { plan: 'unreachable', apply: 'unreachable' });
    assert.deepEqual(phasesAfter('canceled', { plan: 'queued', apply: 'pending' }), { plan: 'canceled', apply: 'unreachable' });
    assert.deepEqual(phasesAfter('canceled', { plan: 'finished', apply: 'running' }), { plan: 'finished', apply: 'canceled' });
    assert.deepEqual(phasesAfter('discarded', { plan: 'pending', apply: 'pending' }), { plan: 'unreachable', apply: 'unreachable' });
    assert.deepEqual(phasesAfter('discarded', { plan: 'finished', apply: 'pending' }), { plan: 'finished', apply: 'unreachable' });
  });

  it('mayMovePhases is false only for run statuses that leave every pair of phases as it is', () => {
    for (const status of RUN_STATUSES) {
      if (mayMovePhases(status)) continue;
      for (const plan of PHASE_STATUSES) {
        for (const apply of PHASE_STATUSES) assert.deepEqual(phasesAfter(status, { plan, apply }), { plan, apply }, `${status} ${plan}/${apply}`);
      }
    }
    assert.equal(mayMovePhases('post_plan_completed'), false);
    assert.equal(mayMovePhases('planned'), true);
  });

  it('a final phase never changes again, whatever the run does', () => {
    const final: PhaseStatus[] = ['finished', 'errored', 'canceled', 'unreachable'];
    for (const status of RUN_STATUSES) {
      for (const plan of final) for (const apply of final) assert.deepEqual(phasesAfter(status, { plan, apply }), { plan, apply }, `${status} ${plan}/${apply}`);
      for (const plan of PHASE_STATUSES) {
        const next = phasesAfter(status, { plan, apply: 'pending' });
        assert.ok(PHASE_STATUSES.includes(next.plan) && PHASE_STATUSES.includes(next.apply));
      }
    }
  });

  it('status-timestamps keys are hyphenated and end in -at', () => {
    assert.equal(timestampKey('post_plan_awaiting_decision'), 'post-plan-awaiting-decision-at');
    assert.equal(timestampKey('queued'), 'queued-at');
  });
});
