/**
 * Plans' and applies' `log-read-url` (issue 28): HCP's signed, expiring URL, read by terraform and go-tfe
 * without a token, with `offset`/`limit`; it opens one log only, and a forged, altered or expired one is 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { signedLogPath } from '../../src/runs/log-url-signature.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, type TestContext, testDialects } from '../helpers/test-app.js';

const SIMULATED_PLAN = "Teamstage's built-in executor runs no Terraform (simulated).\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n"; // TEAMSTAGE_SIMULATED_PLAN_CHANGES

for (const dialect of testDialects()) {
  describe(`signed log URLs (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => (ctx = await createTestApp(dialect, { ...SIMULATED_PLAN_CHANGES, TEAMSTAGE_LOG_URL_TTL: '60' })));
    after(() => ctx.close());

    /** A GET with no token, as go-tfe's LogReader sends it; `status` and a parsed `body` for the error assertions. */
    const read = async (path: string, query = '') => {
      const response = await ctx.app.inject({ method: 'GET', url: `${path}${query}` });
      const isJson = /json/.test(String(response.headers['content-type']));
      return { status: response.statusCode, headers: response.headers, text: response.body, raw: response.rawPayload, body: isJson ? response.json() : response.body };
    };

    it('a finished plan and apply have a log-read-url read without a token, framed STX … ETX, with offset and limit', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name, { 'auto-apply': true });
      const run = await createRun(org.owner.api, workspace.id);
      const applied = await waitForRunStatus(org.owner.api, run.data.id, 'applied');
      const plan = (await org.owner.api.get(`/plans/${applied.relationships.plan.data.id}`)).body.data;
      const apply = (await org.owner.api.get(`/applies/${applied.relationships.apply.data.id}`)).body.data;
      const planUrl = new URL(plan.attributes['log-read-url']);
      assert.equal(planUrl.origin, new URL(ctx.config.baseUrl).origin, 'absolute, at the base URL');
      assert.equal((await org.owner.api.get(`/plans/${plan.id}`)).body.data.attributes['log-read-url'], plan.attributes['log-read-url'], 'stable between reads');

      const whole = await read(planUrl.pathname);
      assertStatus(whole, 200);
      assert.match(String(whole.headers['content-type']), /^text\/plain/);
      assert.equal(whole.text, `\u0002${SIMULATED_PLAN}\u0003`);
      // go-tfe's LogReader: limit=<buffer size>&offset=<bytes read so far>, until ETX.
      let streamed = '';
      for (let offset = 0; ; ) {
        const piece = await read(planUrl.pathname, `?limit=7&offset=${offset}`);
        assertStatus(piece, 200);
        if (piece.raw.length === 0) break;
        streamed += piece.text;
        offset += piece.raw.length;
      }
      assert.equal(streamed, whole.text);
      assert.equal((await read(planUrl.pathname, '?offset=100000')).raw.length, 0, 'past the end: empty');
      const applyLog = await read(new URL(apply.attributes['log-read-url']).pathname);
      assert.match(applyLog.text, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed\.\n\u0003$/);
      assertError(await read(planUrl.pathname, '?limit=-1'), 422);
      assertError(await read(planUrl.pathname, '?offset=abc'), 422);
    });

    it('opens that one log only: another phase, an altered signature or expiry, a made-up URL and an expired one are 404', async () => {
      const org = await createOrganization(ctx);
      const other = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const foreign = await createRunnableWorkspace(ctx, other.owner.api, other.name);
      const mine = await waitForRunStatus(org.owner.api, (await createRun(org.owner.api, workspace.id)).data.id, 'planned');
      const theirs = await waitForRunStatus(other.owner.api, (await createRun(other.owner.api, foreign.id)).data.id, 'planned');
      const planUrl = (await org.owner.api.get(`/plans/${mine.relationships.plan.data.id}`)).body.data.attributes['log-read-url'] as string;
      const [, , , , , , expires, signature] = new URL(planUrl).pathname.split('/');
      const theirPlan = theirs.relationships.plan.data.id;
      assertStatus(await read(new URL(planUrl).pathname), 200);
      // My signature does not open their plan: a URL signs one phase.
      assertError(await read(`/api/v2/signed-logs/${expires}/${signature}/plans/${theirPlan}/log`), 404);
      assertError(await read(`/api/v2/signed-logs/${Number(expires) + 300}/${signature}/plans/${mine.relationships.plan.data.id}/log`), 404);
      assertError(await read(`/api/v2/signed-logs/${expires}/${signature!.slice(0, -2)}AA/plans/${mine.relationships.plan.data.id}/log`), 404);
      assertError(await read(`/api/v2/signed-logs/${expires}/${signature}/applies/${mine.relationships.plan.data.id}/log`), 404);
      assertError(await read(`/api/v2/signed-logs/9999999999/made-up/plans/${theirPlan}/log`), 404);
      // Malformed parts are an unknown URL too, and a bad offset on a made-up URL is that URL's 404 first.
      assertError(await read(`/api/v2/signed-logs/${'9'.repeat(40)}/${signature}/plans/${theirPlan}/log`), 404);
      assertError(await read(`/api/v2/signed-logs/${expires}/${signature}/other/${mine.relationships.plan.data.id}/log`), 404);
      assertError(await read(`/api/v2/signed-logs/9999999999/made-up/plans/${theirPlan}/log`, '?offset=abc'), 404);
      // Expired (TTL 60 s here): the URL of an hour ago.
      const realNow = Date.now;
      Date.now = () => realNow() + 2 * 3600 * 1000;
      try {
        assertError(await read(new URL(planUrl).pathname), 404, /expired/);
      } finally {
        Date.now = realNow;
      }
    });

    it("a run's log URLs die when the run is discarded", async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const planned = await waitForRunStatus(org.owner.api, (await createRun(org.owner.api, workspace.id)).data.id, 'planned');
      const planUrl = new URL((await org.owner.api.get(`/plans/${planned.relationships.plan.data.id}`)).body.data.attributes['log-read-url']);
      assertStatus(await read(planUrl.pathname), 200);
      assertStatus(await org.owner.api.post(`/runs/${planned.id}/actions/discard`, {}), 202);
      assertError(await read(planUrl.pathname), 404);
    });

    it('the signing keys are kept in the database, one per generation (this one and the next): a second node over it signs the same URLs', async () => {
      const rows = await ctx.handle.db.selectFrom('signing_keys').select(['name', 'secret']).orderBy('name').execute();
      const generation = Math.floor(Date.now() / 1000 / 86_400);
      assert.deepEqual(rows.map((row) => row.name), [`log-read-url@${generation}`, `log-read-url@${generation + 1}`]);
      assert.equal(Buffer.from(rows[0]!.secret, 'base64url').length, 32);
      const key = await ctx.services.phaseLogs.load().then(() => ctx.services.phaseLogs.urlFor('plan-x'));
      assert.ok(key?.includes('/plans/plan-x/log'));
    });

    it('the key rotates: a URL dies when its key retires (one lifetime after it stopped signing), and the retired key is deleted', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const planned = await waitForRunStatus(org.owner.api, (await createRun(org.owner.api, workspace.id)).data.id, 'planned');
      const planUrl = new URL((await org.owner.api.get(`/plans/${planned.relationships.plan.data.id}`)).body.data.attributes['log-read-url']);
      const generation = Number(planUrl.pathname.split('/')[5]!.split('.')[0]);
      // A URL of that key that expires in ten days (as a TTL longer than the key's lifetime would make it).
      const secret = (await ctx.handle.db.selectFrom('signing_keys').select('secret').where('name', '=', `log-read-url@${generation}`).executeTakeFirstOrThrow()).secret;
      const longLived = signedLogPath(Buffer.from(secret, 'base64url'), generation, planned.relationships.plan.data.id, Date.now() / 1000, 10 * 86_400);
      assertStatus(await read(longLived), 200);
      const realNow = Date.now;
      const at = (seconds: number) => (Date.now = () => seconds * 1000);
      try {
        // A day on, the next key signs; this URL (were it not past its 60 s TTL) is checked with its own key still.
        at((generation + 1) * 86_400 + 10);
        const next = new URL((await org.owner.api.get(`/plans/${planned.relationships.plan.data.id}`)).body.data.attributes['log-read-url']);
        assert.equal(Number(next.pathname.split('/')[5]!.split('.')[0]), generation + 1, 'signed by the next generation');
        assertStatus(await read(next.pathname), 200);
        assertStatus(await read(longLived), 200); // the key of the day before still verifies
        // Two days on: the first key retired. Its URLs are unknown whatever their expiry, and the key is gone.
        at((generation + 2) * 86_400 + 10);
        assertError(await read(longLived), 404);
        await ctx.services.phaseLogs.load();
        const names = (await ctx.handle.db.selectFrom('signing_keys').select('name').execute()).map((row) => row.name);
        assert.ok(!names.includes(`log-read-url@${generation}`), names.join(', '));
        assert.ok(names.includes(`log-read-url@${generation + 2}`), names.join(', '));
      } finally {
        Date.now = realNow;
        await ctx.handle.db.deleteFrom('signing_keys').where('name', '>', `log-read-url@${generation + 1}`).execute();
      }
    });

  });
}
