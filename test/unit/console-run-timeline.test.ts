/**
 * The console's run timeline model (src/web/runs/run-timeline-model.ts): the six steps in order, start and
 * end from the status timestamps, an overridden stage's start from its results, and durations.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTimeline, formatDuration, stepDuration } from '../../src/web/runs/run-timeline-model.js';

const phase = (id: string, status: string, timestamps: Record<string, string>) => ({ id, attributes: { status, 'status-timestamps': timestamps } });
const stage = (id: string, name: string, status: string, timestamps: Record<string, string>) => ({
  id,
  attributes: { stage: name, status, 'status-timestamps': timestamps },
});
const result = (timestamps: Record<string, string>) => ({ id: 'taskrs-1', attributes: { status: 'failed', 'status-timestamps': timestamps } });

test('the steps come in run order; a stage the run does not have is there with no status', () => {
  const steps = buildTimeline({ stages: [stage('ts-2', 'post_plan', 'pending', {})], results: new Map() });
  assert.deepEqual(
    steps.map((step) => [step.key, step.status]),
    [['pre_plan', null], ['plan', null], ['post_plan', 'pending'], ['pre_apply', null], ['apply', null], ['post_apply', null]],
  );
  assert.equal(steps[2]!.startedAt, null);
});

test('a phase starts when it runs (not when it was queued) and ends at its final status', () => {
  const [, plan] = buildTimeline({
    plan: phase('plan-1', 'finished', { 'queued-at': '2026-01-01T00:00:00.000Z', 'running-at': '2026-01-01T00:00:02.000Z', 'finished-at': '2026-01-01T00:00:05.500Z' }),
    stages: [],
    results: new Map(),
  });
  assert.equal(plan!.startedAt, '2026-01-01T00:00:02.000Z');
  assert.equal(plan!.endedAt, '2026-01-01T00:00:05.500Z');
  assert.deepEqual(stepDuration(plan!, Date.now()), { text: '3.5 s', running: false });
  const [, queued] = buildTimeline({ plan: phase('plan-2', 'queued', { 'queued-at': '2026-01-01T00:00:00.000Z' }), stages: [], results: new Map() });
  assert.equal(queued!.startedAt, null);
  assert.equal(stepDuration(queued!, Date.now()), null);
});

test('an overridden stage keeps the time its task started, though the override refreshed running-at', () => {
  const overridden = stage('ts-1', 'post_plan', 'passed', {
    'running-at': '2026-01-01T00:01:00.000Z',
    'awaiting-override-at': '2026-01-01T00:00:03.000Z',
    'passed-at': '2026-01-01T00:01:01.000Z',
  });
  const results = new Map([['ts-1', [result({ 'running-at': '2026-01-01T00:00:01.000Z', 'failed-at': '2026-01-01T00:00:03.000Z' })]]]);
  const step = buildTimeline({ stages: [overridden], results }).find((candidate) => candidate.key === 'post_plan')!;
  assert.equal(step.startedAt, '2026-01-01T00:00:01.000Z');
  assert.equal(step.endedAt, '2026-01-01T00:01:01.000Z');
  assert.deepEqual(stepDuration(step, Date.now()), { text: '1 min 0 s', running: false });
});

test('a running step counts to now; a stage awaiting an override counts its checks, not the wait', () => {
  const running = buildTimeline({ stages: [stage('ts-1', 'pre_plan', 'running', { 'running-at': '2026-01-01T00:00:00.000Z' })], results: new Map() })[0]!;
  assert.deepEqual(stepDuration(running, Date.parse('2026-01-01T00:00:42.000Z')), { text: '42 s', running: true });
  const waiting = buildTimeline({
    stages: [stage('ts-1', 'pre_plan', 'awaiting_override', { 'running-at': '2026-01-01T00:00:00.000Z', 'awaiting-override-at': '2026-01-01T00:00:02.000Z' })],
    results: new Map(),
  })[0]!;
  assert.equal(waiting.endedAt, null);
  assert.deepEqual(stepDuration(waiting, Date.parse('2026-01-01T01:00:00.000Z')), { text: '2.0 s, then waiting for a decision', running: false });
});

test('durations read as people say them', () => {
  assert.equal(formatDuration(420), '0.4 s');
  assert.equal(formatDuration(12_400), '12 s');
  assert.equal(formatDuration(185_000), '3 min 5 s');
  assert.equal(formatDuration(7_440_000), '2 h 4 min');
  assert.equal(formatDuration(-1), '—');
});
