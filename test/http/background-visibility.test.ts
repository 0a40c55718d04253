/**
 * Issue 31, item 4: background work can be watched. /metrics reports the job table (by kind and state, the
 * oldest due job's age, failing jobs), runs by status and run task deliveries (by outcome, with latency); a
 * failed delivery and a job taken over from a dead node are warn lines naming the run, the organization and
 * the destination host; every answer carries X-Request-Id, the caller's when it is a plausible id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { NO_ORGANIZATION } from '../../src/jobs/job-queue.js';
import { Jobs } from '../../src/jobs/jobs.js';
import { createOrganization } from '../helpers/fixtures.js';
import { MockTaskService } from '../helpers/mock-task-service.js';
import { attachRunTask, createRun, createRunnableWorkspace, createRunTask, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

/** The value of one series of a Prometheus text page, or undefined when it is not there. */
function series(page: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = page.split('\n').find((row) => row.startsWith(`${name}{`) && wanted.every((label) => row.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function scrape(ctx: TestContext): Promise<string> {
  const response = await ctx.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(response.statusCode, 200);
  return response.body;
}

for (const dialect of testDialects()) {
  describe(`background work is visible (${dialect})`, () => {
    describe('a run task that keeps failing', () => {
      let ctx: TestContext;
      let mock: MockTaskService;
      const lines: Array<Record<string, unknown>> = [];
      before(async () => {
        const logger = { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } };
        ctx = await createTestApp(dialect, { TEAMSTAGE_TASK_RETRY_DELAYS: '0.05' }, { logger });
        mock = await MockTaskService.start();
      });
      after(async () => {
        await mock.close();
        await ctx.close();
      });

      it('is counted by outcome, logged at warn with run, organization and host, and the errored run is counted', async () => {
        const org = await createOrganization(ctx);
        const task = await createRunTask(org.owner.api, org.name, mock.url); // verified with a 200
        const workspace = await createRunnableWorkspace(ctx, org.owner.api, org.name);
        await attachRunTask(org.owner.api, workspace.id, task.id, { 'enforcement-level': 'mandatory', stages: ['pre_plan'] });
        mock.respond = () => ({ status: 500 });
        const run = await createRun(org.owner.api, workspace.id);
        await waitForRunStatus(org.owner.api, run.data.id, 'errored', 20_000);

        const failures = lines.filter((line) => line.msg === 'run task request failed');
        assert.equal(failures.length, 2, 'both attempts logged');
        assert.equal(failures[0]!.level, 40, 'at warn');
        assert.equal(failures[0]!.runId, run.data.id);
        assert.equal(failures[0]!.organization, org.name);
        assert.equal(failures[0]!.destination, `${mock.host}:${mock.port}`);
        assert.equal(failures[0]!.httpStatus, 500);

        const page = await scrape(ctx);
        assert.equal(series(page, 'teamstage_task_deliveries_total', { outcome: 'rejected' }), 2);
        assert.equal(series(page, 'teamstage_task_delivery_duration_seconds_count', { outcome: 'rejected' }), 2);
        assert.equal(series(page, 'teamstage_runs', { status: 'errored' }), 1);
      });
    });

    describe('the job table', () => {
      let ctx: TestContext;
      before(async () => {
        ctx = await createTestApp(dialect, { TEAMSTAGE_JOBS: 'off' });
      });
      after(() => ctx.close());

      it('shows due and scheduled jobs by kind, and how long the oldest due one has waited', async () => {
        const jobs = ctx.services.jobs;
        await jobs.enqueue(ctx.handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.waiting', payload: {}, runAt: new Date(Date.now() - 60_000) });
        await jobs.enqueue(ctx.handle.db, { organizationName: NO_ORGANIZATION, kind: 'test.waiting', payload: {}, runAt: new Date(Date.now() + 600_000) });
        await ctx.handle.durable?.();
        const page = await scrape(ctx);
        assert.equal(series(page, 'teamstage_jobs', { kind: 'test.waiting', state: 'due' }), 1);
        assert.equal(series(page, 'teamstage_jobs', { kind: 'test.waiting', state: 'scheduled' }), 1);
        assert.equal(series(page, 'teamstage_jobs', { kind: 'test.waiting', state: 'running' }), 0);
        const age = series(page, 'teamstage_job_oldest_due_age_seconds', { kind: 'test.waiting' });
        assert.ok(age !== undefined && age >= 59 && age < 600, `oldest due age ${age}`);
      });
    });

    describe('a job whose node died', () => {
      let ctx: TestContext;
      before(async () => {
        ctx = await createTestApp(dialect, { TEAMSTAGE_JOBS: 'off' });
      });
      after(() => ctx.close());

      it('is taken over by another node after its lease, with a warn line naming it, and a failed handler is counted', async () => {
        const lines: Array<Record<string, unknown>> = [];
        const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
        const url = ctx.config.databaseUrl;
        const dead = new Jobs(ctx.handle, { concurrency: 1, pollMs: 60_000, leaseMs: 200, databaseUrl: url }, log);
        await dead.enqueue(ctx.handle.db, { kind: 'test.orphan', payload: { runId: 'run-orphan', secret: 'not-logged' }, organizationName: 'acme' });
        await ctx.handle.durable?.();
        assert.equal((await dead.queue.claim('node-that-dies', 1, 200)).length, 1); // claimed, never finished
        const survivor = new Jobs(ctx.handle, { concurrency: 1, pollMs: 100, leaseMs: 5000, databaseUrl: url }, log);
        let ran = 0;
        survivor.register('test.orphan', async () => {
          ran += 1;
          if (ran === 1) throw new Error('first try fails');
        });
        const failures: string[] = [];
        survivor.worker.onFailure((kind) => failures.push(kind));
        survivor.start();
        try {
          await waitUntil(() => ran >= 1, 10_000);
        } finally {
          await survivor.stop();
        }
        const takeover = lines.find((line) => line.msg === 'job taken over: an earlier claim ended unfinished (its node stopped or died)');
        assert.ok(takeover, `a takeover line: ${JSON.stringify(lines)}`);
        assert.equal(takeover.level, 40);
        assert.equal(takeover.kind, 'test.orphan');
        assert.equal(takeover.runId, 'run-orphan');
        assert.equal(takeover.organization, 'acme');
        assert.ok(!JSON.stringify(lines).includes('not-logged'), 'only ids of the payload are logged');
        assert.deepEqual(failures, ['test.orphan']);
      });
    });

    describe('request ids', () => {
      let ctx: TestContext;
      const lines: Array<Record<string, unknown>> = [];
      before(async () => {
        const logger = { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } };
        ctx = await createTestApp(dialect, { TEAMSTAGE_JOBS: 'off' }, { logger });
      });
      after(() => ctx.close());

      it("every answer carries X-Request-Id: the caller's plausible one, else a fresh unique one", async () => {
        const given = await ctx.app.inject({ method: 'GET', url: '/api/v2/ping', headers: { 'x-request-id': 'trace-4f1c:abc/1' } });
        assert.equal(given.headers['x-request-id'], 'trace-4f1c:abc/1');
        assert.ok(lines.some((line) => line.msg === 'request completed' && line.reqId === 'trace-4f1c:abc/1'), 'the log line has it as reqId');
        const unknown = await ctx.app.inject({ method: 'GET', url: '/api/v2/teams/team-nope' });
        assert.equal(unknown.statusCode, 401);
        const first = unknown.headers['x-request-id'];
        const second = (await ctx.app.inject({ method: 'GET', url: '/api/v2/ping' })).headers['x-request-id'];
        assert.match(String(first), /^[0-9a-f-]{36}$/);
        assert.notEqual(first, second);
        const bent = await ctx.app.inject({ method: 'GET', url: '/api/v2/ping', headers: { 'x-request-id': 'a b\tc'.repeat(10) } });
        assert.match(String(bent.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'an id with white space is replaced');
        const long = await ctx.app.inject({ method: 'GET', url: '/api/v2/ping', headers: { 'x-request-id': 'x'.repeat(129) } });
        assert.match(String(long.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'an over-long id is replaced');
      });
    });
  });
}
