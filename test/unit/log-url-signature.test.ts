import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { generationVerifies, isValidLogSignature, keyGeneration, parseSignatureSegment, signedLogPath } from '../../src/runs/log-url-signature.js';

const key = randomBytes(32);
const parts = (path: string) => {
  const [, , , , expires, segment, collection, phaseId, last] = path.split('/');
  const { generation, signature } = parseSignatureSegment(segment!)!;
  return { expires: expires!, generation, signature, collection, phaseId: phaseId!, last };
};

describe('signed log URLs', () => {
  it('names the phase, its collection and its key generation, ends in /log, and is valid until its expiry (at least the TTL, rounded up to 5 minutes)', () => {
    const now = 1_800_000_123;
    const path = signedLogPath(key, 7, 'apply-abc', now, 3600);
    const { expires, generation, signature, collection, phaseId, last } = parts(path);
    assert.ok(path.startsWith('/api/v2/signed-logs/'));
    assert.deepEqual([collection, phaseId, last, generation], ['applies', 'apply-abc', 'log', 7]);
    assert.ok(Number(expires) >= now + 3600 && Number(expires) < now + 3600 + 300 && Number(expires) % 300 === 0);
    assert.equal(isValidLogSignature(key, 7, 'apply-abc', expires, signature, now), true);
    assert.equal(isValidLogSignature(key, 7, 'apply-abc', expires, signature, Number(expires) + 1), false, 'expired');
    assert.equal(signedLogPath(key, 7, 'apply-abc', now + 60, 3600), path, 'the same URL within the step');
  });

  it('another phase, expiry, key or generation, or a changed signature, does not verify', () => {
    const now = 1_800_000_000;
    const { expires, signature } = parts(signedLogPath(key, 3, 'plan-mine', now, 60));
    assert.equal(isValidLogSignature(key, 3, 'plan-theirs', expires, signature, now), false);
    assert.equal(isValidLogSignature(key, 3, 'plan-mine', String(Number(expires) + 300), signature, now), false);
    assert.equal(isValidLogSignature(randomBytes(32), 3, 'plan-mine', expires, signature, now), false);
    assert.equal(isValidLogSignature(key, 4, 'plan-mine', expires, signature, now), false, 'the generation is signed too');
    assert.equal(isValidLogSignature(key, 3, 'plan-mine', expires, `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, now), false);
    assert.equal(isValidLogSignature(key, 3, 'plan-mine', 'soon', signature, now), false);
    assert.equal(isValidLogSignature(key, 3, 'plan-mine', expires, '', now), false);
    assert.equal(parseSignatureSegment(signature), undefined, 'a segment without its generation (a URL of before the rotation) is unknown');
  });

  it('a key signs for one lifetime and verifies for one more, then never again', () => {
    const lifetime = 3600;
    assert.equal(keyGeneration(7 * lifetime + 5, lifetime), 7);
    assert.equal(generationVerifies(7, 7 * lifetime, lifetime), true);
    assert.equal(generationVerifies(7, 8 * lifetime + lifetime - 1, lifetime), true, 'the next lifetime');
    assert.equal(generationVerifies(7, 9 * lifetime, lifetime), false, 'retired');
    assert.equal(generationVerifies(8, 7 * lifetime, lifetime), false, 'not yet signing');
  });
});
