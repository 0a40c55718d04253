import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryOnDeadlock } from '../../src/db/deadlock-retry.js';

describe('retryOnDeadlock', () => {
  it('runs the work again after a deadlock abort and returns its result', async () => {
    let calls = 0;
    const result = await retryOnDeadlock(async () => {
      calls += 1;
      if (calls < 3) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return 'done';
    });
    assert.equal(result, 'done');
    assert.equal(calls, 3);
  });

  it('does not retry other errors, and gives up after the last attempt', async () => {
    let calls = 0;
    await assert.rejects(retryOnDeadlock(async () => {
      calls += 1;
      throw Object.assign(new Error('unique'), { code: '23505' });
    }), /unique/);
    assert.equal(calls, 1);
    calls = 0;
    await assert.rejects(retryOnDeadlock(async () => {
      calls += 1;
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    }, 2), /deadlock/);
    assert.equal(calls, 2);
  });
});
