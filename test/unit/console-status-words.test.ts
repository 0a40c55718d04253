/**
 * The console's status words (src/web/runs/status-words.ts): every shared status has words (the maps are
 * `Record`s over the shared types, so a new status fails to compile; this checks no key is extra either),
 * and none is the API's word with underscores.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PHASE_STATUSES, RUN_STATUSES } from '../../src/shared/run-statuses.js';
import { RESULT_STATUSES, STAGE_STATUSES } from '../../src/shared/task-stage-statuses.js';
import { PHASE_STATUS_WORDS, RESULT_STATUS_WORDS, RUN_STATUS_WORDS, STAGE_STATUS_WORDS, statusMeaning, statusWords } from '../../src/web/runs/status-words.js';

test('each map has exactly the shared statuses, each in words', () => {
  for (const [statuses, words] of [
    [RUN_STATUSES, RUN_STATUS_WORDS],
    [PHASE_STATUSES, PHASE_STATUS_WORDS],
    [STAGE_STATUSES, STAGE_STATUS_WORDS],
    [RESULT_STATUSES, RESULT_STATUS_WORDS],
  ] as const) {
    assert.deepEqual(Object.keys(words).sort(), [...statuses].sort());
    for (const status of statuses) assert.match(statusWords(status), /^[A-Z][^_]*$/, status);
  }
  assert.equal(statusWords('post_plan_awaiting_decision'), 'Needs a decision on the plan');
  assert.equal(statusWords('a_future_status'), 'A future status');
});

test('meanings: passed, needs a decision, failed, in progress', () => {
  assert.equal(statusMeaning('applied'), 'passed');
  assert.equal(statusMeaning('passed'), 'passed');
  assert.equal(statusMeaning('awaiting_override'), 'decision');
  assert.equal(statusMeaning('post_plan_awaiting_decision'), 'decision');
  assert.equal(statusMeaning('failed'), 'failed');
  assert.equal(statusMeaning('errored'), 'failed');
  assert.equal(statusMeaning('plan_queued'), 'progress');
  assert.equal(statusMeaning('discarded'), 'info');
});
