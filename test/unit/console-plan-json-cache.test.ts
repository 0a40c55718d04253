/**
 * The run page's plan JSON (src/web/runs/plan-json-cache.ts): asked for once per plan, so the request the run
 * page starts beside the run's own requests is the one the structured view then shows; a failed answer is
 * kept only when the server refused (404), not when the connection or the server failed; only a finished plan with changes is asked for.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planJson, showsPlanChanges } from '../../src/web/runs/plan-json-cache.js';

function fakeApi(answer: (path: string) => Promise<unknown>) {
  const asked: string[] = [];
  const api = {
    get: <T>(path: string) => {
      asked.push(path);
      return answer(path) as Promise<T>;
    },
  };
  return { api, asked };
}

test('one request per plan: the prefetch and the view share it; another plan asks again', async () => {
  const { api, asked } = fakeApi(async (path) => ({ path }));
  const first = planJson(api, 'plan-1');
  const again = planJson(api, 'plan-1');
  assert.equal(first, again);
  assert.deepEqual(await again, { path: '/plans/plan-1/json-output' });
  assert.deepEqual(asked, ['/plans/plan-1/json-output']);
  await planJson(api, 'plan/2');
  assert.deepEqual(asked, ['/plans/plan-1/json-output', '/plans/plan%2F2/json-output']);
  const other = fakeApi(async () => ({}));
  await planJson(other.api, 'plan/2');
  assert.equal(other.asked.length, 1, 'a new session (another token) does not reuse the answer');
});

test('a refusal (no JSON: 404) is kept, not asked for at every poll', async () => {
  const { api, asked } = fakeApi(async () => {
    throw Object.assign(new Error('not found'), { status: 404 });
  });
  assert.equal(await planJson(api, 'plan-4'), null);
  assert.equal(await planJson(api, 'plan-4'), null);
  assert.equal(asked.length, 1);
});

test('a failed answer (no connection, a server error) reads as no JSON and is asked for again next time', async () => {
  const failures = [new Error('connection dropped'), Object.assign(new Error('unavailable'), { status: 503 })];
  const { api, asked } = fakeApi(async () => {
    const failure = failures.shift();
    if (failure) throw failure;
    return { resource_changes: [] };
  });
  assert.equal(await planJson(api, 'plan-3'), null);
  assert.equal(await planJson(api, 'plan-3'), null);
  assert.deepEqual(await planJson(api, 'plan-3'), { resource_changes: [] });
  assert.equal(asked.length, 3);
});

test('only a finished plan with changes is fetched', () => {
  const plan = (status: string, hasChanges: boolean, type = 'plans') => ({ id: 'p', type, attributes: { status, 'has-changes': hasChanges } });
  assert.equal(showsPlanChanges(plan('finished', true)), true);
  assert.equal(showsPlanChanges(plan('finished', false)), false);
  assert.equal(showsPlanChanges(plan('running', true)), false);
  assert.equal(showsPlanChanges(plan('finished', true, 'applies')), false);
  assert.equal(showsPlanChanges(undefined), false);
});
