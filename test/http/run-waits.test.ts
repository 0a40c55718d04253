/**
 * Issue 27, "waiting is event-driven": `GET /runs/:id?wait=SECONDS&wait-token=TOKEN` answers within 200 ms of
 * a change to the run (its status, a stage, its place in the queue), woken by the database's change signals
 * (NOTIFY on PostgreSQL, across nodes; temporary triggers on SQLite), else after the wait; bounded per token
 * and in time; a client that goes away frees its place.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { buildApp, type App } from '../../src/app.js';
import type { Services } from '../../src/services.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { ApiClient } from '../helpers/api-client.js';
import { ApiClient as Client } from '../helpers/api-client.js';
import { createOrganization, type TestOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { startListeningApp } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const LIMIT = 3;

for (const dialect of testDialects()) {
  describe(`waiting run reads (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let org: TestOrganization;
    let api: ApiClient;

    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_RUN_WAITS_PER_PRINCIPAL: String(LIMIT), TEAMSTAGE_RUN_WAIT_MAX: '5' });
      org = await createOrganization(ctx);
      api = org.owner.api;
    });
    after(async () => {
      await ctx.close();
    });

    /** An agent-mode run waiting for its plan's claim (nothing moves it but the test). */
    async function queuedAgentRun(): Promise<{ runId: string; planId: string; workspaceId: string }> {
      const workspace = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      const run = await createRun(api, workspace.id, {});
      const queued = await waitForRunStatus(api, run.data.id, 'plan_queued');
      return { runId: run.data.id, planId: queued.relationships.plan.data.id, workspaceId: workspace.id };
    }

    const tokenOf = async (client: ApiClient, runId: string) => {
      const shown = await client.get(`/runs/${runId}`);
      assert.equal(shown.status, 200, shown.text);
      assert.match(shown.body.meta['wait-token'], /^[\w-]{16}$/);
      return shown.body.meta['wait-token'] as string;
    };

    it('answers at a status change, not before it and not at the end of its wait; the new token differs', async () => {
      const { runId, planId } = await queuedAgentRun();
      const token = await tokenOf(api, runId);
      const started = performance.now();
      const waiting = api.get(`/runs/${runId}?wait=5&wait-token=${token}`).then((answer) => ({ answer, at: performance.now() }));
      await waitUntil(() => ctx.services.runWaits.waiting === 1, 10_000, 'the read never started waiting');
      // Held 300 ms with nothing changed (the time is the mechanism here): an answer before the change would show.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 300 - (performance.now() - started))));
      assert.equal(ctx.services.runWaits.waiting, 1, 'the read is waiting');
      const claimed = await api.post(`/plans/${planId}/actions/claim`);
      assert.equal(claimed.status, 200, claimed.text);
      const changedAt = performance.now();
      const { answer, at } = await waiting;
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.attributes.status, 'planning');
      assert.notEqual(answer.body.meta['wait-token'], token);
      assert.ok(at - started >= 290, `answered before the change (${Math.round(at - started)} ms)`);
      // Half the 5 s wait: a read that missed the change answers at the wait's end. Not a time of this machine's
      // (the answer normally comes within a few ms of the claim).
      assert.ok(at - changedAt < 2500, `answered ${Math.round(at - changedAt)} ms after the change`);
      assert.equal(ctx.services.runWaits.waiting, 0);
    });

    it('without a change it answers after the wait, unchanged; a stale token answers at once; no token means "from now"', async () => {
      const { runId } = await queuedAgentRun();
      const token = await tokenOf(api, runId);
      let started = performance.now();
      const idle = await api.get(`/runs/${runId}?wait=0.4&wait-token=${token}`);
      const idleMs = performance.now() - started;
      assert.equal(idle.body.meta['wait-token'], token);
      assert.ok(idleMs >= 390 && idleMs < 2000, `${Math.round(idleMs)} ms`);

      started = performance.now();
      const stale = await api.get(`/runs/${runId}?wait=5&wait-token=not-the-token`);
      assert.equal(stale.body.meta['wait-token'], token);
      // Half the 5 s wait asked for (here and below): a read that waited answers at its end.
      assert.ok(performance.now() - started < 2500, 'a client behind the server gets the run at once');

      started = performance.now();
      const fromNow = await api.get(`/runs/${runId}?wait=0.3`);
      assert.equal(fromNow.status, 200);
      assert.ok(performance.now() - started >= 290);
    });

    it('the wait is bounded by TEAMSTAGE_RUN_WAIT_MAX; bad values are 422; an unknown run is 404 without waiting', async () => {
      const { runId } = await queuedAgentRun();
      for (const bad of ['abc', '0', '-1', '']) {
        const answer = await api.get(`/runs/${runId}?wait=${bad}`);
        assert.equal(answer.status, 422, `wait=${bad}: ${answer.text}`);
        assert.equal(answer.body.errors[0].source.parameter, 'wait');
      }
      const started = performance.now();
      const missing = await api.get('/runs/run-doesnotexist1234?wait=5');
      assert.equal(missing.status, 404);
      assert.ok(performance.now() - started < 2500);
      // Asked for an hour, waits at most the 5 s configured here.
      const token = await tokenOf(api, runId);
      const asked = performance.now();
      const long = await api.get(`/runs/${runId}?wait=3600&wait-token=${token}`);
      const ms = performance.now() - asked;
      assert.equal(long.status, 200);
      assert.ok(ms >= 4900 && ms < 8000, `${Math.round(ms)} ms`);
    });

    it(`at most ${LIMIT} waiting reads per token (429 beyond, others unaffected); a client that goes away frees its place`, async () => {
      const { runId } = await queuedAgentRun();
      const token = await tokenOf(api, runId);
      const url = new URL(`/api/v2/runs/${runId}?wait=5&wait-token=${token}`, ctx.config.baseUrl);
      // Real sockets, so the clients can go away.
      const requests = Array.from({ length: LIMIT }, () => {
        const request = http.get(url, { headers: { authorization: `Bearer ${org.owner.token}` } });
        request.on('error', () => {});
        return request;
      });
      await waitUntil(() => ctx.services.runWaits.waiting === LIMIT, 5000, 'the waits did not open');
      const refused = await api.get(`/runs/${runId}?wait=5&wait-token=${token}`);
      assert.equal(refused.status, 429, refused.text);
      assert.match(refused.body.errors[0].detail, /already has 3 waiting run reads open/);
      // Another principal is not held back by this token's waits.
      const siteAdmin = new Client(ctx.app, ctx.siteToken);
      assert.equal((await siteAdmin.get(`/runs/${runId}?wait=0.1&wait-token=${token}`)).status, 200);
      for (const request of requests) request.destroy();
      await waitUntil(() => ctx.services.runWaits.waiting === 0, 2000, 'the waits of clients that went away were not freed');
      const again = await api.get(`/runs/${runId}?wait=0.1&wait-token=${token}`);
      assert.equal(again.status, 200);
    });

    it("a pending run's reader learns when its place in the queue changes", async () => {
      const workspace = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      const first = await createRun(api, workspace.id, {});
      await waitForRunStatus(api, first.data.id, 'plan_queued');
      const second = await createRun(api, workspace.id, {});
      const shown = await api.get(`/runs/${second.data.id}`);
      assert.equal(shown.body.data.attributes.status, 'pending');
      assert.equal(shown.body.data.attributes['position-in-queue'], 1);
      const waiting = api.get(`/runs/${second.data.id}?wait=5&wait-token=${shown.body.meta['wait-token']}`).then((answer) => ({ answer, at: performance.now() }));
      await waitUntil(() => ctx.services.runWaits.waiting === 1, 10_000, 'the read never started waiting');
      const canceled = await api.post(`/runs/${first.data.id}/actions/cancel`, {});
      assert.equal(canceled.status, 202, canceled.text);
      const changedAt = performance.now();
      const { answer, at } = await waiting;
      assert.notEqual(answer.body.meta['wait-token'], shown.body.meta['wait-token']);
      assert.ok(at - changedAt < 1000, `${Math.round(at - changedAt)} ms`);
    });

    if (dialect === 'postgres') {
      it('across nodes: a read waiting on one node answers within 200 ms of a change made through another', async () => {
        const { runId, planId } = await queuedAgentRun();
        const handle: DatabaseHandle = openDatabase(ctx.config.databaseUrl);
        let other: App | undefined;
        try {
          let otherServices: Services;
          ({ app: other, services: otherServices } = await buildApp({ config: { ...ctx.config, jobs: { ...ctx.config.jobs, enabled: false } }, handle, logger: false }));
          const otherApi = new Client(other, org.owner.token);
          const token = await tokenOf(otherApi, runId);
          // Let the other node's LISTEN connection come up before anything changes.
          await new Promise((resolve) => setTimeout(resolve, 300));
          const waiting = otherApi.get(`/runs/${runId}?wait=5&wait-token=${token}`).then((answer) => ({ answer, at: performance.now() }));
          await waitUntil(() => otherServices.runWaits.waiting === 1, 10_000, "the other node's read never started waiting");
          assert.equal((await api.post(`/plans/${planId}/actions/claim`)).status, 200);
          const changedAt = performance.now();
          const { answer, at } = await waiting;
          assert.equal(answer.body.data.attributes.status, 'planning');
          assert.ok(at - changedAt < 200, `${Math.round(at - changedAt)} ms`);
        } finally {
          await other?.close();
          await handle.close();
        }
      });
    }
  });
}
