import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('HTTP timeouts in the configuration', () => {
  it('default to 20 s for headers, 300 s for a whole request, 72 s for an idle keep-alive connection, 30 s for a stalled answer or upload', () => {
    assert.deepEqual(loadConfig({}).http, {
      headersTimeoutSeconds: 20, requestTimeoutSeconds: 300, keepAliveTimeoutSeconds: 72, sendIdleTimeoutSeconds: 30, receiveIdleTimeoutSeconds: 30,
    });
  });

  it('take fractions, and refuse zero, negative or non-numeric values and headers slower than the request', () => {
    const http = loadConfig({
      TEAMSTAGE_HTTP_HEADERS_TIMEOUT: '0.5', TEAMSTAGE_HTTP_REQUEST_TIMEOUT: '1.5', TEAMSTAGE_HTTP_KEEP_ALIVE_TIMEOUT: '0.25',
      TEAMSTAGE_HTTP_SEND_IDLE_TIMEOUT: '0.75', TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT: '2.5',
    }).http;
    assert.deepEqual(http, { headersTimeoutSeconds: 0.5, requestTimeoutSeconds: 1.5, keepAliveTimeoutSeconds: 0.25, sendIdleTimeoutSeconds: 0.75, receiveIdleTimeoutSeconds: 2.5 });
    for (const name of ['TEAMSTAGE_HTTP_HEADERS_TIMEOUT', 'TEAMSTAGE_HTTP_REQUEST_TIMEOUT', 'TEAMSTAGE_HTTP_KEEP_ALIVE_TIMEOUT', 'TEAMSTAGE_HTTP_SEND_IDLE_TIMEOUT', 'TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT']) {
      for (const value of ['0', '-1', 'soon']) assert.throws(() => loadConfig({ [name]: value }), (error) => error instanceof ConfigError && error.message.includes(name));
    }
    assert.throws(() => loadConfig({ TEAMSTAGE_HTTP_HEADERS_TIMEOUT: '30', TEAMSTAGE_HTTP_REQUEST_TIMEOUT: '10' }), /must not be longer/);
  });
});
