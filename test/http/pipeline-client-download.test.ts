/**
 * Issue 27, "a pipeline client for any CI": the server serves the standalone client at a stable URL, to
 * anyone, cacheably, and refuses a client of another version with an answer that says where the right one
 * is. (The real file, built and run by a CI-like process: test/process/pipeline-cli.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '../../src/core/version.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';

describe('GET /pipeline/teamstage-pipeline.mjs and the client version check', () => {
  let ctx: TestContext;
  let unbuilt: TestContext;
  const content = `#!/usr/bin/env node\nconsole.log("client ${'x'.repeat(2000)}");\n`;

  before(async () => {
    const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'pipeline-client-'));
    const file = path.join(dir, 'teamstage-pipeline.mjs');
    fs.writeFileSync(file, content);
    ctx = await createTestApp('sqlite', { TEAMSTAGE_PIPELINE_CLIENT_FILE: file, TEAMSTAGE_BASE_URL: 'https://teamstage.example.com' });
    unbuilt = await createTestApp('sqlite', { TEAMSTAGE_PIPELINE_CLIENT_FILE: path.join(dir, 'missing.mjs') });
  });
  after(async () => {
    await ctx.close();
    await unbuilt.close();
  });

  it('serves the file without a token, as JavaScript, with an ETag that answers 304, and gzip when asked', async () => {
    const plain = await ctx.app.inject({ method: 'GET', url: '/pipeline/teamstage-pipeline.mjs' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, content);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers['cache-control'], 'no-cache');
    assert.equal(plain.headers['x-teamstage-version'], VERSION);
    assert.equal(plain.headers['content-encoding'], undefined, 'curl without --compressed gets the file as is');
    const etag = String(plain.headers.etag);
    assert.match(etag, /^"[\w-]{22}"$/);
    const again = await ctx.app.inject({ method: 'GET', url: '/pipeline/teamstage-pipeline.mjs', headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const gzipped = await ctx.app.inject({ method: 'GET', url: '/pipeline/teamstage-pipeline.mjs', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzipped.rawPayload).toString(), content);
    const head = await ctx.app.inject({ method: 'HEAD', url: '/pipeline/teamstage-pipeline.mjs' });
    assert.equal(head.statusCode, 200);
  });

  it('the OpenAPI document names it (no token) and the long polling parameters of the run read', async () => {
    const docs = (await ctx.app.inject({ method: 'GET', url: '/api/docs' })).json();
    const download = docs.paths['/pipeline/teamstage-pipeline.mjs'].get;
    assert.deepEqual(download.security, []);
    assert.match(download.description, /curl -fsSo teamstage-pipeline\.mjs/);
    assert.match(docs.paths['/api/v2/runs/{run_id}'].get.description, /wait=SECONDS.*wait-token/s);
  });

  it('an installation that was never built says so (404, JSON:API)', async () => {
    const answer = await unbuilt.app.inject({ method: 'GET', url: '/pipeline/teamstage-pipeline.mjs' });
    assert.equal(answer.statusCode, 404);
    assert.match(answer.json().errors[0].detail, /pipeline client is not built.*npm run build/);
  });

  it('a client of another version is refused (400) with where to fetch the matching one; its own version and no header pass', async () => {
    const old = await ctx.app.inject({ method: 'GET', url: '/api/v2/ping', headers: { 'x-teamstage-pipeline-version': '0.0.1' } });
    assert.equal(old.statusCode, 400);
    assert.equal(
      old.json().errors[0].detail,
      `this teamstage pipeline client is version 0.0.1 and the server ${VERSION}: fetch the client again (curl -fsSo teamstage-pipeline.mjs https://teamstage.example.com/pipeline/teamstage-pipeline.mjs)`,
    );
    // Before the credentials: the answer is the same with a bad token, and it names the fix, not the token.
    const withBadToken = await ctx.app.inject({ method: 'GET', url: '/api/v2/account/details', headers: { 'x-teamstage-pipeline-version': '0.0.1', authorization: 'Bearer nope' } });
    assert.equal(withBadToken.statusCode, 400);
    const same = await ctx.app.inject({ method: 'GET', url: '/api/v2/ping', headers: { 'x-teamstage-pipeline-version': VERSION } });
    assert.equal(same.statusCode, 204);
    const none = await ctx.app.inject({ method: 'GET', url: '/api/v2/ping' });
    assert.equal(none.statusCode, 204);
  });
});
