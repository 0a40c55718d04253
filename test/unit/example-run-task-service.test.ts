import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
// @ts-expect-error: a plain JavaScript example without type declarations
import { createServer, decide, signatureMatches } from '../../examples/run-task-service/server.mjs';

describe('examples/run-task-service', () => {
  it('checks the signature against the exact body', () => {
    const body = Buffer.from('{"a":1}');
    const signature = createHmac('sha512', 'k').update(body).digest('hex');
    assert.equal(signatureMatches(body, signature, 'k'), true);
    assert.equal(signatureMatches(Buffer.from('{"a":2}'), signature, 'k'), false);
    assert.equal(signatureMatches(body, signature, 'other'), false);
    assert.equal(signatureMatches(body, undefined, 'k'), false);
    assert.equal(signatureMatches(body, '', ''), true, 'no key configured: not checked');
  });

  it('fails workspaces whose name contains the pattern, or everything when asked', () => {
    assert.equal(decide({ workspace_name: 'payments-PROD' }, { failPattern: 'prod', alwaysFail: false }).status, 'failed');
    assert.equal(decide({ workspace_name: 'payments-dev' }, { failPattern: 'prod', alwaysFail: false }).status, 'passed');
    assert.equal(decide({ workspace_name: 'payments-dev' }, { failPattern: 'prod', alwaysFail: true }).status, 'failed');
  });

  it('answers 401 to a bad signature and 200 to a good one', async () => {
    const server = createServer({ hmacKey: 'k', failPattern: 'prod', alwaysFail: false, verdictDelayMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const body = JSON.stringify({ stage: 'test', access_token: 'test-token' });
      const bad = await fetch(url, { method: 'POST', body, headers: { 'x-tfc-task-signature': 'nope' } });
      assert.equal(bad.status, 401);
      const good = await fetch(url, { method: 'POST', body, headers: { 'x-tfc-task-signature': createHmac('sha512', 'k').update(body).digest('hex') } });
      assert.equal(good.status, 200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
