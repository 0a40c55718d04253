/**
 * Issue 34, "Fair shares", for the work lane (run progress, settling, overrides, timeouts): one organization
 * that queues hundreds of runs must not make another organization's run wait for its backlog. Every work job
 * is enqueued in the share of its run's organization, and the lane claims in turn across organizations
 * (jobs/fair-claim.ts), so the other organization's run is claimed in the first claim of the lane, wherever it
 * stands in time order. Asserted on claim order, not on the machine's speed; the figures in RELIABILITY.md
 * come from TEAMSTAGE_PRINT_FIGURES=1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClaimedJob } from '../../src/jobs/job-queue.js';
import { RUN_ADVANCE_JOB } from '../../src/runs/run-advance-job.js';
import { createOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

const SLOTS = 4;
const BACKLOG = 150;

for (const dialect of testDialects()) {
  describe(`the work lane takes turns across organizations (${dialect})`, { timeout: 240_000 }, () => {
    let ctx: TestContext;
    before(async () => {
      // The worker starts only once the backlog is in place (TEAMSTAGE_JOBS=off: the test starts it).
      ctx = await createTestApp(dialect, { TEAMSTAGE_JOBS: 'off', TEAMSTAGE_JOB_CONCURRENCY: String(SLOTS), TEAMSTAGE_PENDING_RUNS_PER_WORKSPACE: '1000' });
    });
    after(async () => {
      await ctx.close();
    });

    it(`claims another organization's run in the lane's first claim while one organization has ${BACKLOG} runs queued before it`, async () => {
      const flooder = await createOrganization(ctx);
      const other = await createOrganization(ctx);
      const floodWorkspace = await createRunnableWorkspace(ctx, flooder.owner.api, flooder.name);
      const otherWorkspace = await createRunnableWorkspace(ctx, other.owner.api, other.name);
      const floodRuns: string[] = [];
      for (let i = 0; i < BACKLOG; i++) floodRuns.push((await createRun(flooder.owner.api, floodWorkspace.id, { 'plan-only': true })).data.id);
      const otherRun = (await createRun(other.owner.api, otherWorkspace.id, { 'plan-only': true })).data.id as string;

      // Each run's progress job was enqueued in its organization's share.
      const queued = await ctx.handle.db.selectFrom('jobs').select(['kind', 'organization_name', 'payload']).where('lane', '=', 'work').execute();
      const advance = queued.filter((job) => job.kind === RUN_ADVANCE_JOB);
      assert.equal(advance.length, BACKLOG + 1);
      for (const job of advance) {
        const { runId } = JSON.parse(job.payload) as { runId: string };
        assert.equal(job.organization_name, runId === otherRun ? other.name : flooder.name, `the progress job of ${runId}`);
      }

      // The order in which the lane claims run progress, by organization.
      const claimOrder: string[] = [];
      const queue = ctx.services.jobs.queue;
      const claim = queue.claim.bind(queue);
      queue.claim = async (...args: Parameters<typeof queue.claim>): Promise<ClaimedJob[]> => {
        const claimed = await claim(...args);
        for (const job of claimed) if (job.kind === RUN_ADVANCE_JOB) claimOrder.push(job.organizationName);
        return claimed;
      };
      const started = performance.now();
      ctx.services.jobs.start();
      await waitForRunStatus(other.owner.api, otherRun, 'planned_and_finished', 60_000);
      const otherDoneMs = performance.now() - started;
      const position = claimOrder.indexOf(other.name) + 1;
      const print = (line: string) => process.env.TEAMSTAGE_PRINT_FIGURES && console.log(`${dialect}: ${line}`);
      print(`the other organization's run finished ${Math.round(otherDoneMs)} ms after the worker started (claimed ${position}th)`);
      // In time order it would be claimed after the whole backlog (position BACKLOG + 1).
      assert.ok(position >= 1 && position <= SLOTS, `the other organization's run was claimed ${position}th of ${claimOrder.length} (at most ${SLOTS}: one claim of the lane)`);

      await waitUntil(
        async () => (await ctx.handle.db.selectFrom('jobs').select('id').where('kind', '=', RUN_ADVANCE_JOB).execute()).length === 0,
        120_000,
        'the flooding organization\'s runs never all progressed',
      );
      const floodDoneMs = performance.now() - started;
      assert.equal(claimOrder.filter((name) => name === flooder.name).length >= BACKLOG, true, 'every flooding run was claimed too');
      print(`the ${BACKLOG} flooding runs finished ${Math.round(floodDoneMs)} ms after it started`);
    });
  });
}
