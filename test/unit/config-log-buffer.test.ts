import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { logDestination } from '../../src/http/log-destination.js';

describe('TEAMSTAGE_LOG_BUFFER_BYTES', () => {
  it('takes 0, as documented (each line written at once), and a whole number of bytes; defaults to 4096', () => {
    assert.equal(loadConfig({}).logBufferBytes, 4096);
    assert.equal(loadConfig({ TEAMSTAGE_LOG_BUFFER_BYTES: '0' }).logBufferBytes, 0);
    assert.equal(loadConfig({ TEAMSTAGE_LOG_BUFFER_BYTES: '65536' }).logBufferBytes, 65536);
    assert.ok(logDestination(0, '/dev/null'), 'an unbuffered destination opens');
  });

  it('refuses negative, fractional and non-numeric values by name', () => {
    for (const value of ['-1', '1.5', 'lots']) {
      assert.throws(() => loadConfig({ TEAMSTAGE_LOG_BUFFER_BYTES: value }), (error) => error instanceof ConfigError && error.message.includes('TEAMSTAGE_LOG_BUFFER_BYTES'));
    }
  });
});
