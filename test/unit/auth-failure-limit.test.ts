import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthFailureLimit, addressKey } from '../../src/http/auth-failure-limit.js';
import { loadConfig } from '../../src/config.js';

describe('failed authentication per address (AuthFailureLimit)', () => {
  it('refuses an address once it failed `limit` times in a window, until the window ends', () => {
    const limit = new AuthFailureLimit({ limit: 3, windowMs: 60_000 });
    const t0 = 1_000_000;
    for (let i = 0; i < 2; i++) limit.failed('10.0.0.1', `bad${i}`, t0 + i);
    assert.equal(limit.retryAfterMs('10.0.0.1', 'other', t0 + 10), 0, 'under the limit');
    limit.failed('10.0.0.1', undefined, t0 + 20);
    assert.equal(limit.retryAfterMs('10.0.0.1', 'other', t0 + 30), 60_000 - 30);
    assert.equal(limit.retryAfterMs('10.0.0.1', undefined, t0 + 59_999), 1);
    assert.equal(limit.retryAfterMs('10.0.0.1', undefined, t0 + 60_000), 0, 'the window is over');
    assert.equal(limit.retryAfterMs('10.0.0.2', undefined, t0 + 30), 0, 'other addresses are not refused');
    limit.failed('10.0.0.1', 'bad', t0 + 60_001);
    assert.equal(limit.retryAfterMs('10.0.0.1', undefined, t0 + 60_002), 0, 'a new window starts from one failure');
  });

  it('lets a recently valid token through a refused address, until that token fails', () => {
    const limit = new AuthFailureLimit({ limit: 1 });
    limit.succeeded('good');
    limit.failed('10.0.0.1', 'bad');
    assert.ok(limit.retryAfterMs('10.0.0.1', 'bad') > 0);
    assert.equal(limit.retryAfterMs('10.0.0.1', 'good'), 0);
    limit.failed('10.0.0.1', 'good');
    assert.ok(limit.retryAfterMs('10.0.0.1', 'good') > 0, 'a failure makes it a stranger again');
  });

  it('keeps memory bounded: the oldest addresses and tokens are forgotten first', () => {
    const limit = new AuthFailureLimit({ limit: 1, maxAddresses: 2, maxTrustedTokens: 2 });
    limit.failed('10.0.0.1', undefined);
    limit.failed('10.0.0.2', undefined);
    limit.failed('10.0.0.3', undefined);
    assert.equal(limit.retryAfterMs('10.0.0.1', undefined), 0, 'forgotten');
    assert.ok(limit.retryAfterMs('10.0.0.3', undefined) > 0);
    limit.succeeded('a');
    limit.succeeded('b');
    limit.succeeded('a'); // used again: now the most recent
    limit.succeeded('c');
    assert.equal(limit.retryAfterMs('10.0.0.3', 'a'), 0);
    assert.ok(limit.retryAfterMs('10.0.0.3', 'b') > 0, 'the least recently used token was forgotten');
  });

  it('forgets ended windows', () => {
    const limit = new AuthFailureLimit({ limit: 1, windowMs: 1000 });
    limit.failed('10.0.0.1', undefined, 0);
    limit.failed('10.0.0.2', undefined, 500);
    assert.equal(limit.retryAfterMs('10.0.0.9', undefined, 1200), 0);
    assert.equal(limit.trackedAddresses(), 1, 'the first window ended and is gone');
    assert.ok(limit.retryAfterMs('10.0.0.2', undefined, 1200) > 0);
  });

  it('counts IPv4 (also IPv4-mapped) per address and IPv6 per /64', () => {
    assert.equal(addressKey('192.0.2.1'), '192.0.2.1');
    assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(addressKey('2001:db8::1'), addressKey('2001:0db8:0000:0000:ffff:1:2:3'));
    assert.notEqual(addressKey('2001:db8:0:1::1'), addressKey('2001:db8:0:2::1'));
    assert.equal(addressKey('fe80::1%eth0'), addressKey('fe80::2'));
    assert.equal(addressKey('64:ff9b::192.0.2.1'), addressKey('64:ff9b:0:0:1::'));
  });

  it('TEAMSTAGE_AUTH_FAILURE_LIMIT: 60 by default, 0 turns it off, anything else but a whole number is refused', () => {
    assert.equal(loadConfig({}).authFailureLimit, 60);
    assert.equal(loadConfig({ TEAMSTAGE_AUTH_FAILURE_LIMIT: '0' }).authFailureLimit, 0);
    assert.throws(() => loadConfig({ TEAMSTAGE_AUTH_FAILURE_LIMIT: '2.5' }), /TEAMSTAGE_AUTH_FAILURE_LIMIT/);
    assert.throws(() => loadConfig({ TEAMSTAGE_AUTH_FAILURE_LIMIT: '-1' }), /TEAMSTAGE_AUTH_FAILURE_LIMIT/);
  });
});
