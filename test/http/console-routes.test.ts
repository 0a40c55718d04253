/**
 * The console's static files at /app (src/http/routes/console.routes.ts) through the whole app: no
 * credentials needed, hashed assets cached for ever and pre-compressed, the HTML revalidated and locked
 * down by its Content-Security-Policy, unknown files the usual JSON:API 404. SQLite only: no database is read.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

describe('web console files at /app', () => {
  let ctx: TestContext;
  before(async () => {
    await ensureWebBuilt();
    ctx = await createTestApp('sqlite');
  });
  after(() => ctx.close());

  const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

  async function assetUrls(): Promise<string[]> {
    const html = (await get('/app/')).body;
    return [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  }

  it('serves the page without credentials, revalidated, under a strict Content-Security-Policy', async () => {
    for (const url of ['/app', '/app/']) {
      const response = await get(url);
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers['cache-control'], 'no-cache');
      assert.match(String(response.headers['content-security-policy']), /default-src 'none'.*script-src 'self'.*connect-src 'self'/);
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.match(response.body, /<div id="root">/);
    }
    const etag = String((await get('/app/')).headers.etag);
    const again = await get('/app/', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('names only its own content-hashed files, cached for ever, in brotli or gzip as the client accepts', async () => {
    const urls = await assetUrls();
    assert.equal(urls.length, 2, 'one script and one stylesheet');
    for (const url of urls) {
      assert.match(url, /-[A-Z0-9]{8}\.(js|css)$/);
      const plain = await get(url);
      assert.equal(plain.statusCode, 200);
      assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers.vary, 'accept-encoding');

      const brotli = await get(url, { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(brotli.headers['content-encoding'], 'br');
      assert.equal(zlib.brotliDecompressSync(brotli.rawPayload).toString(), plain.body);
      assert.ok(brotli.rawPayload.length < plain.rawPayload.length / 2);

      const gzip = await get(url, { 'accept-encoding': 'gzip, br;q=0' });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.equal(zlib.gunzipSync(gzip.rawPayload).toString(), plain.body);
    }
  });

  it('every console path under /app is the page itself (history routing), HCP run links included; / leads to /app/', async () => {
    const index = (await get('/app/')).body;
    for (const url of ['/app/acme/workspaces/web/runs/run-AAAAAAAAAAAAAAAA', '/app/acme/teams/team-abc', '/app/acme/web/runs/run-1', '/app/assets/workspaces', '/app/assets']) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.match(String(response.headers['content-type']), /^text\/html/, url);
      assert.match(String(response.headers['content-security-policy']), /default-src 'none'/, url);
      assert.equal(response.body, index, url);
    }
    const root = await get('/');
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/app/');
  });

  it('an unknown asset under /app/assets is a JSON:API 404, also with a body and no credentials', async () => {
    for (const url of ['/app/assets/main-NOTBUILT.js', '/app/assets/style.css']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.match(String(response.headers['content-type']), /json/);
      assert.ok(Array.isArray(response.json().errors));
    }
    const posted = await ctx.app.inject({ method: 'POST', url: '/app/', headers: { 'content-type': 'application/json' }, payload: '{"a":1}' });
    assert.equal(posted.statusCode, 404);
  });

  it('a request with a refused token for /app still gets the page: the files hold no data and need no sign-in', async () => {
    const response = await get('/app/', { authorization: 'Bearer nonsense' });
    assert.equal(response.statusCode, 200);
  });
});
