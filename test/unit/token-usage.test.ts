import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOKEN_USE_INTERVAL_MS, TokenUsage } from '../../src/identity/token-usage.js';

function recorder() {
  const writes: Array<{ id: string; at: string; staleBefore: string }> = [];
  return { writes, touch: async (id: string, at: string, staleBefore: string) => void writes.push({ id, at, staleBefore }) };
}

describe('token usage (last-used-at)', () => {
  it('writes a token at most once per interval, each token on its own', async () => {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const tokens = recorder();
    const usage = new TokenUsage(tokens, undefined, () => now);
    await usage.used('at-a');
    await usage.used('at-b');
    now += TOKEN_USE_INTERVAL_MS - 1;
    await usage.used('at-a');
    assert.deepEqual(tokens.writes.map((write) => write.id), ['at-a', 'at-b']);
    assert.deepEqual(tokens.writes[0], { id: 'at-a', at: '2026-01-01T00:00:00.000Z', staleBefore: '2025-12-31T23:59:00.000Z' });
    now += 1;
    await usage.used('at-a');
    assert.deepEqual(tokens.writes.map((write) => write.id), ['at-a', 'at-b', 'at-a']);
  });

  it('reports a failed write instead of failing the request, and does not retry it at once', async () => {
    const errors: unknown[] = [];
    let attempts = 0;
    const usage = new TokenUsage({ touch: async () => { attempts++; throw new Error('disk full'); } }, (error) => errors.push(error));
    await usage.used('at-a');
    await usage.used('at-a');
    assert.equal(attempts, 1);
    assert.equal(errors.length, 1);
  });
});
