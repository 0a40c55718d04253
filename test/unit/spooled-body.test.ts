/**
 * A spooled upload that stalls (issue 25 item 2): nothing arriving for the receive idle limit is a 408 well
 * before the request timeout, the temporary file is gone, and the request is left undestroyed so that the
 * refusal can still be answered. A body that keeps arriving, however slowly, is not cut.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { ApiError, Errors } from '../../src/core/errors.js';
import { spoolBody } from '../../src/http/spooled-body.js';

const spooledFiles = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('teamstage-body-'));

describe('spooled request bodies', () => {
  it('a body from which nothing arrives for the idle limit is refused with a 408; the file goes, the request stays', async () => {
    const body = new PassThrough();
    body.write(Buffer.alloc(64 * 1024));
    const started = performance.now();
    const refused = await spoolBody(body, 1024 * 1024, undefined, { idleSeconds: 0.3 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const elapsed = performance.now() - started;
    assert.ok(refused instanceof ApiError && refused.status === 408, String(refused));
    assert.match(refused.message, /TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT/);
    assert.ok(elapsed >= 250 && elapsed < 2000, `refused after ${Math.round(elapsed)} ms`);
    assert.equal(body.destroyed, false, 'the request is not destroyed: its refusal can be answered');
  });

  it('a slow body that keeps arriving within the idle limit is spooled whole', async () => {
    const body = new PassThrough();
    const pieces = 6;
    const sending = (async () => {
      for (let i = 0; i < pieces; i++) {
        body.write(Buffer.alloc(1000, i));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      body.end();
    })();
    const spooled = await spoolBody(body, 1024 * 1024, undefined, { idleSeconds: 0.3 });
    await sending;
    try {
      assert.equal(spooled.size, pieces * 1000);
      assert.equal(fs.statSync(spooled.path).size, pieces * 1000);
    } finally {
      await spooled.dispose();
    }
    assert.equal(fs.existsSync(spooled.path), false);
  });

  it('over the limit: the refusal the caller chose, and the file goes', async () => {
    const body = new PassThrough();
    body.end(Buffer.alloc(2000));
    const before = new Set(spooledFiles());
    await assert.rejects(spoolBody(body, 1000, undefined, { tooLarge: (limit) => Errors.uploadTooLarge('log', limit) }), /the log is larger than the limit of 1000 bytes/);
    assert.deepEqual(spooledFiles().filter((name) => !before.has(name)), []);
  });
});
