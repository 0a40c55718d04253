import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { isValidLogSignature, signedLogPath } from '../../src/runs/log-url-signature.js';

const key = randomBytes(32);
const parts = (path: string) => {
  const [, , , , expires, signature, collection, phaseId, last] = path.split('/');
  return { expires: expires!, signature: signature!, collection, phaseId: phaseId!, last };
};

describe('signed log URLs', () => {
  it('names the phase and its collection, ends in /log, and is valid until its expiry (at least the TTL, rounded up to 5 minutes)', () => {
    const now = 1_800_000_123;
    const path = signedLogPath(key, 'apply-abc', now, 3600);
    const { expires, signature, collection, phaseId, last } = parts(path);
    assert.ok(path.startsWith('/api/v2/signed-logs/'));
    assert.deepEqual([collection, phaseId, last], ['applies', 'apply-abc', 'log']);
    assert.ok(Number(expires) >= now + 3600 && Number(expires) < now + 3600 + 300 && Number(expires) % 300 === 0);
    assert.equal(isValidLogSignature(key, 'apply-abc', expires, signature, now), true);
    assert.equal(isValidLogSignature(key, 'apply-abc', expires, signature, Number(expires) + 1), false, 'expired');
    assert.equal(signedLogPath(key, 'apply-abc', now + 60, 3600), path, 'the same URL within the step');
  });

  it('another phase, expiry or key, or a changed signature, does not verify', () => {
    const now = 1_800_000_000;
    const { expires, signature } = parts(signedLogPath(key, 'plan-mine', now, 60));
    assert.equal(isValidLogSignature(key, 'plan-theirs', expires, signature, now), false);
    assert.equal(isValidLogSignature(key, 'plan-mine', String(Number(expires) + 300), signature, now), false);
    assert.equal(isValidLogSignature(randomBytes(32), 'plan-mine', expires, signature, now), false);
    assert.equal(isValidLogSignature(key, 'plan-mine', expires, `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, now), false);
    assert.equal(isValidLogSignature(key, 'plan-mine', 'soon', signature, now), false);
    assert.equal(isValidLogSignature(key, 'plan-mine', expires, '', now), false);
  });
});
