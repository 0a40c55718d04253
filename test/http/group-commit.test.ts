import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { assertStatus } from '../helpers/assertions.js';
import { createOrganization } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { attachRunTask, createRunnableWorkspace, createRunTask } from '../helpers/run-fixtures.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

/**
 * SQLite group commit (src/db/wal-group-commit.ts): nothing that acknowledges a write leaves the process
 * before the write is on disk. The handle's `durable()` is held closed here, standing for a slow disk.
 */
describe('group commit (sqlite): acknowledgements wait for the disk', () => {
  let ctx: TestContext;
  let mock: MockTaskService;
  let gate: { closed: boolean; waiting: number; open: () => void };
  before(async () => {
    ctx = await createTestApp('sqlite');
    mock = await MockTaskService.start();
    const durable = ctx.handle.durable;
    assert.ok(durable, 'the server runs SQLite with group commit by default');
    let release = () => {};
    let opened = Promise.resolve();
    gate = {
      closed: false,
      waiting: 0,
      open: () => {
        gate.closed = false;
        release();
      },
    };
    ctx.handle.durable = async () => {
      if (gate.closed) {
        if (gate.waiting === 0) opened = new Promise((resolve) => (release = resolve));
        gate.waiting += 1;
        await opened;
        gate.waiting -= 1;
      }
      await durable();
    };
  });
  after(async () => {
    gate.open();
    await mock.close();
    await ctx.close();
  });


  it('holds a write response until its commit is durable', async () => {
    const org = await createOrganization(ctx);
    gate.closed = true;
    let answered = false;
    const created = org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'durable-team' } } });
    void created.then(() => (answered = true));
    await waitUntil(() => gate.waiting === 1, 5000, 'the response waits for durable()');
    await sleep(50);
    assert.equal(answered, false, 'no response before the commit is on disk');
    gate.open();
    assertStatus(await created, 200); // team create answers 200, not 201, as HCP Terraform does
  });

  it('holds every response of a batch of concurrent creations (one INSERT for all) until it is durable', async () => {
    const org = await createOrganization(ctx);
    gate.closed = true;
    const answered = new Set<number>();
    const creations = [0, 1, 2, 3].map((i) => {
      const created = org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: `batched-${i}` } } });
      void created.then(() => answered.add(i));
      return created;
    });
    await waitUntil(() => gate.waiting === 4, 5000, 'every response waits for durable()');
    await sleep(50);
    assert.equal(answered.size, 0, 'no response before the batch is on disk');
    gate.open();
    for (const created of creations) assertStatus(await created, 200);
  });

  it('answers a read without waiting for the sync of a write it does not depend on', async () => {
    const org = await createOrganization(ctx);
    const team = await org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'read-while-syncing' } } });
    assertStatus(team, 200);
    gate.closed = true;
    let written = false;
    const write = org.owner.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name: 'held-write' } } });
    void write.then(() => (written = true));
    await waitUntil(() => gate.waiting === 1, 5000, 'the write waits for durable()');
    // Reads are served from the durable snapshot (src/db/durable-snapshot-reads.ts): no wait for the disk.
    const read = await org.owner.api.get(`/teams/${team.body.data.id}`);
    assertStatus(read, 200);
    assert.equal(read.body.data.attributes.name, 'read-while-syncing');
    assert.equal(written, false, 'the write is still held');
    gate.open();
    assertStatus(await write, 200);
  });

  it('sends no run task request before the result, its token and attempt are durable', async () => {
    const org = await createOrganization(ctx);
    const task = await createRunTask(org.owner.api, org.name, mock.url);
    const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
    await attachRunTask(org.owner.api, workspace.id, task.id, { 'enforcement-level': 'mandatory' });
    const before = mock.requests.length;
    gate.closed = true;
    const run = org.owner.api.post('/runs', {
      data: { type: 'runs', attributes: {}, relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } } },
    });
    // The run's response waits; the plan runs in the background and its delivery reaches durable() too.
    await waitUntil(() => gate.waiting >= 2 || mock.requests.length > before, 5000, 'the delivery reached durable() or was sent');
    assert.equal(mock.requests.length, before, 'nothing sent to the task service while the commit is not durable');
    gate.open();
    assertStatus(await run, 201);
    await mock.waitForRequests(before + 1);
  });
});
