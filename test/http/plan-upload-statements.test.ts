/**
 * A plan upload finds and authorizes the plan once (its route's declared lookup) and the service takes that
 * proof: before, the upload route's hook and the service each ran the access reads (11 statements on SQLite).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrganization } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { createTestApp, testDialects, type TestContext } from '../helpers/test-app.js';

const PLAN_JSON = JSON.stringify({ format_version: '1.2', resource_changes: [] });
/**
 * The bound: the token, the plan, its run, its workspace, the caller's standing, the write and the
 * answer (7). The write is now two statements, the upload's piece (phase_upload_chunks, issue 25) and the
 * plan pointing at it (which also answers, RETURNING), and the measured upload replaces the warm-up's, whose
 * piece is removed: one more.
 */
const MAX_STATEMENTS = 8;

for (const dialect of testDialects()) {
  describe(`a plan upload's statements (${dialect})`, () => {
    let ctx: TestContext;
    let recording: string[] | undefined;
    before(async () => {
      ctx = await createTestApp(dialect, {}, { onQuery: (sql) => recording?.push(sql) });
    });
    after(() => ctx.close());

    it(`PUT /plans/:id/json-output runs at most ${MAX_STATEMENTS} SQL statements`, async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const workspace = await createRunnableWorkspace(ctx, api, org.name, { 'execution-mode': 'agent' });
      const run = await createRun(api, workspace.id);
      const planId = run.data.relationships.plan.data.id;
      await waitForRunStatus(api, run.data.id, ['plan_queued']);
      assert.equal((await api.post(`/plans/${planId}/actions/claim`)).status, 200);
      // Once to warm what a first request does once per process (prepared statements, the token's last use).
      const upload = () =>
        ctx.app.inject({
          method: 'PUT',
          url: `/api/v2/plans/${planId}/json-output`,
          headers: { authorization: `Bearer ${org.owner.token}`, 'content-type': 'application/json' },
          payload: PLAN_JSON,
        });
      assert.equal((await upload()).statusCode, 200);
      // Only the statements of the request: the job worker (which runs its own meanwhile) is stopped.
      await ctx.services.jobs.stop();
      const statements: string[] = [];
      recording = statements;
      const response = await upload();
      recording = undefined;
      assert.equal(response.statusCode, 200, response.body);
      // The count is of what this request ran: at least its token, its plan and its write.
      assert.ok(statements.some((sql) => /^update "plans"/.test(sql)), `the upload's write was not recorded:\n${statements.join('\n')}`);
      assert.ok(statements.length <= MAX_STATEMENTS, `${statements.length} statements:\n${statements.join('\n')}`);
    });
  });
}
