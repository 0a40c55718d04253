/**
 * Issue 31, item 3: two builds of one package version are told apart: the ping names the build
 * (X-Teamstage-Version), /metrics has teamstage_build_info, and run task requests carry it in User-Agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BUILD_VERSION, COMMIT, VERSION } from '../../src/core/version.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

describe('the build a node runs is visible', () => {
  it('is the package version and a commit', () => {
    assert.equal(BUILD_VERSION, `${VERSION}+${COMMIT}`);
    assert.match(COMMIT, /^[0-9a-z.-]+$/);
  });

  for (const dialect of testDialects()) {
    describe(dialect, () => {
      let ctx: TestContext;
      before(async () => {
        ctx = await createTestApp(dialect);
      });
      after(() => ctx.close());

      it('in the ping and /healthz', async () => {
        const ping = await ctx.app.inject({ method: 'GET', url: '/api/v2/ping' });
        assert.equal(ping.statusCode, 204);
        assert.equal(ping.headers['x-teamstage-version'], BUILD_VERSION);
        const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(health.json().version, BUILD_VERSION);
      });

      it('in /metrics as teamstage_build_info', async () => {
        const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
        assert.equal(metrics.statusCode, 200);
        const line = metrics.body.split('\n').find((row) => row.startsWith('teamstage_build_info{'));
        assert.ok(line, 'teamstage_build_info is exported');
        assert.match(line, new RegExp(`version="${VERSION.replace(/\./g, '\\.')}"`));
        assert.match(line, new RegExp(`commit="${COMMIT}"`));
        assert.match(line, / 1$/);
      });
    });
  }
});
