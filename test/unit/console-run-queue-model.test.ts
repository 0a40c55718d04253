/** The workspace page's queue model (src/web/workspaces/run-queue-model.ts): a pending run's place and the run it waits for. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { placeText, queuePlaces, type QueuedRun } from '../../src/web/workspaces/run-queue-model.js';

const run = (id: string, status: string, minute: number, extra: Partial<QueuedRun['attributes']> = {}): QueuedRun => ({
  id,
  attributes: { status, message: `msg ${id}`, 'created-at': `2026-11-27T10:${String(minute).padStart(2, '0')}:00Z`, 'plan-only': false, ...extra },
});
const isFinal = (status: string) => ['applied', 'errored', 'discarded', 'canceled', 'planned_and_finished'].includes(status);

test('a pending run waits for the nearest older run that takes turns; final and plan-only runs are passed over', () => {
  const places = queuePlaces(
    [
      run('d', 'pending', 4, { 'position-in-queue': 2 }),
      run('c', 'planning', 3, { 'plan-only': true }),
      run('b', 'pending', 2, { 'position-in-queue': 1 }),
      run('a', 'post_plan_awaiting_decision', 1),
      run('z', 'applied', 0),
    ],
    isFinal,
  );
  assert.deepEqual([...places.keys()].sort(), ['b', 'd']);
  assert.equal(places.get('b')!.waitsFor!.id, 'a');
  assert.equal(places.get('d')!.waitsFor!.id, 'b');
  assert.equal(placeText(places.get('d')!), '2 runs ahead in the queue');
  assert.equal(placeText({ ahead: 1, waitsFor: null }), '1 run ahead in the queue');
  assert.equal(placeText({ ahead: 0, waitsFor: null }), 'next in the queue');
});
