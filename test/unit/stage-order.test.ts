import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareStages, inRunOrder, stageHasPlan, TASK_STAGE_ORDER } from '../../src/shared/stage-order.js';

describe('the stage order', () => {
  it('sorts stages as a run passes them', () => {
    assert.deepEqual(['post_apply', 'pre_plan', 'pre_apply', 'post_plan'].sort(compareStages), [...TASK_STAGE_ORDER]);
    assert.deepEqual(inRunOrder(['post_apply', 'post_plan', 'post_apply']), ['post_plan', 'post_apply']);
  });

  it('offers a plan from post_plan on', () => {
    assert.deepEqual(TASK_STAGE_ORDER.filter(stageHasPlan), ['post_plan', 'pre_apply', 'post_apply']);
  });
});
