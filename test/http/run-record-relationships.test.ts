/**
 * A run document names its record, as HCP's does (issue 28; go-tfe's TestRunsRunEvents and
 * TestRunsApply_RunDependent): `relationships.run-events` lists the run's events oldest first, its
 * creation the first of them, already in the answer to `POST /runs`; `relationships.comments` lists the
 * comments given with apply, discard and cancel (and on their own), each readable at `GET /comments/:id`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertStatus } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, SIMULATED_PLAN_CHANGES, type TestContext, testDialects } from '../helpers/test-app.js';
import type { ApiClient } from '../helpers/api-client.js';

const ids = (relationship: any): string[] => relationship.data.map((entry: any) => entry.id);

/** The run's events and comments as their own lists give them, oldest first. */
async function recordOf(api: ApiClient, runId: string): Promise<{ events: string[]; comments: string[] }> {
  const events = await api.get(`/runs/${runId}/run-events?page[size]=100`);
  assertStatus(events, 200);
  const comments = await api.get(`/runs/${runId}/comments?page[size]=100`);
  assertStatus(comments, 200);
  return { events: events.body.data.map((event: any) => event.id), comments: comments.body.data.map((comment: any) => comment.id) };
}

for (const dialect of testDialects()) {
  describe(`a run's run-events and comments relationships (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => (ctx = await createTestApp(dialect, SIMULATED_PLAN_CHANGES)));
    after(() => ctx.close());

    it('POST /runs answers with the run-events relationship: its creation, the queued event', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const created = await createRun(org.owner.api, workspace.id);
      const relationships = created.data.relationships;
      assert.equal(relationships['run-events'].data.length, 1, JSON.stringify(relationships['run-events']));
      assert.deepEqual(relationships.comments.data, []);
      const [queued] = relationships['run-events'].data;
      assert.equal(queued.type, 'run-events');
      const event = await org.owner.api.get(`/run-events/${queued.id}`);
      assertStatus(event, 200);
      assert.equal(event.body.data.attributes.action, 'queued');
    });

    it('GET /runs/:id lists every event and the comment of an apply, readable at GET /comments/:id', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const runId = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, runId, 'planned');
      assertStatus(await org.owner.api.post(`/runs/${runId}/actions/apply`, { comment: 'Hello, Earl' }), 202);
      const read = await org.owner.api.get(`/runs/${runId}`);
      assertStatus(read, 200);
      const { relationships } = read.body.data;
      assert.equal(relationships.comments.data.length, 1);
      assert.equal(relationships.comments.data[0].type, 'comments');
      const comment = await org.owner.api.get(`/comments/${relationships.comments.data[0].id}`);
      assertStatus(comment, 200);
      assert.equal(comment.body.data.attributes.body, 'Hello, Earl');
      const record = await recordOf(org.owner.api, runId);
      assert.deepEqual(ids(relationships['run-events']), record.events.slice(0, relationships['run-events'].data.length));
      assert.ok(relationships['run-events'].data.every((entry: any) => entry.type === 'run-events'));
      assert.deepEqual(ids(relationships.comments), record.comments);

      // Later events (the apply's progress) show up as they are written; the comment stays the only one.
      const applied = await waitForRunStatus(org.owner.api, runId, 'applied');
      const finalRecord = await recordOf(org.owner.api, runId);
      assert.deepEqual(ids(applied.relationships['run-events']), finalRecord.events);
      assert.ok(finalRecord.events.length > 3, finalRecord.events.join(', '));
      assert.deepEqual(ids(applied.relationships.comments), finalRecord.comments);
    });

    it('the comments of a discard, a cancel and a comment of its own are listed on their run, each run its own in the run list', async () => {
      const org = await createOrganization(ctx);
      const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
      const first = (await createRun(org.owner.api, workspace.id)).data.id;
      // The second waits for the first (one run at a time per workspace): pending, so cancelable.
      const second = (await createRun(org.owner.api, workspace.id)).data.id;
      await waitForRunStatus(org.owner.api, first, 'planned');
      assertStatus(await org.owner.api.post(`/runs/${second}/actions/cancel`, { comment: 'superseded' }), 202);
      assertStatus(await org.owner.api.post(`/runs/${first}/comments`, { data: { type: 'comments', attributes: { body: 'looks fine' } } }), 201);
      assertStatus(await org.owner.api.post(`/runs/${first}/actions/discard`, { comment: 'not today' }), 202);
      await waitForRunStatus(org.owner.api, first, 'discarded');
      await waitForRunStatus(org.owner.api, second, 'canceled');

      const bodiesOf = async (run: any) =>
        Promise.all(ids(run.relationships.comments).map(async (id) => (await org.owner.api.get(`/comments/${id}`)).body.data.attributes.body));
      const list = await org.owner.api.get(`/workspaces/${workspace.id}/runs`);
      assertStatus(list, 200);
      const listed = (runId: string) => list.body.data.find((run: any) => run.id === runId);
      assert.deepEqual(await bodiesOf(listed(first)), ['looks fine', 'not today']);
      assert.deepEqual(await bodiesOf(listed(second)), ['superseded']);
      for (const runId of [first, second]) {
        const record = await recordOf(org.owner.api, runId);
        assert.deepEqual(ids(listed(runId).relationships['run-events']), record.events, runId);
        assert.deepEqual(ids(listed(runId).relationships.comments), record.comments, runId);
        const shown = (await org.owner.api.get(`/runs/${runId}`)).body.data;
        assert.deepEqual(shown.relationships, listed(runId).relationships, runId);
      }
    });
  });
}
