/**
 * The SQL statements the hot routes send per request (issue 39), so that a second read of the token, the
 * organization or the team cannot creep back. Counted from every statement the server runs through its
 * database handle (Kysely's query log: on PostgreSQL each is one round trip, BEGIN and COMMIT included),
 * after a warm-up request (a first request writes the token's last use once per process), with the job
 * worker stopped so that only the request's own statements are counted.
 *
 * Figures before issue 39's work (SQLite / PostgreSQL): GET team 2/2 with a user token, 6/6 with a team
 * token, 6/6 with an owners-team token; PATCH team 9/9, 11/11, 11/11; GET run 8/8; a task result callback 6/7.
 * After: GET team 2 for every token; PATCH 6 on SQLite, 3 on PostgreSQL; then the token read with the team:
 * GET team 1, PATCH 5 on SQLite, 2 on PostgreSQL; GET run 5/5; a `running` callback 5/2.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DefaultQueryCompiler } from 'kysely';
import type { Dialect } from '../../src/db/database.js';
import { ApiClient } from '../helpers/api-client.js';
import { createTeam, type TestOrganization } from '../helpers/fixtures.js';
import { waitForRunStatus } from '../helpers/run-fixtures.js';
import { ScriptedTaskService, gatedWorkspace, stagesOf, startListeningApp, startRun } from '../helpers/task-stage-scenario.js';
import { testDialects, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';

/** The most statements each route may send, per dialect. */
const CEILINGS: Record<string, Record<Dialect, number>> = {
  // The token with the team, its organization, the caller's standing, members and token in one read
  // (teams/team-read-with-credential.ts).
  'GET team': { sqlite: 1, postgres: 1 },
  // The token and the team's read (above), then the write with its audit entry: one statement on PostgreSQL,
  // a transaction on SQLite (BEGIN, UPDATE, INSERT, COMMIT: it has no data-modifying WITH, and no round trips).
  'PATCH team': { sqlite: 5, postgres: 2 },
  // The token, the run, its workspace, the caller's standing, then the plan, apply, stages and record ids in one.
  'GET run': { sqlite: 5, postgres: 5 },
  // The token with its result, then the write if the result is still as read: with its deadline job in one
  // statement on PostgreSQL, a transaction on SQLite (BEGIN, UPDATE, INSERT, COMMIT).
  'task result callback': { sqlite: 5, postgres: 2 },
};

for (const dialect of testDialects()) {
  describe(`statements per request on the hot routes (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    let recording: string[] | undefined;
    let compiles: string[] | undefined;
    let org: TestOrganization;
    let teamId: string;
    const callers: Record<string, ApiClient> = {};
    let runId: string;
    let callback: { path: string; client: ApiClient };

    before(async () => {
      ctx = await startListeningApp(dialect, { TEAMSTAGE_TASK_CALLBACK_TIMEOUT: '600' }, { onQuery: (sql) => recording?.push(sql) });
      service = await ScriptedTaskService.start();
      const gated = await gatedWorkspace(ctx, service, 'silent', { enforcement: 'mandatory' });
      org = gated.org;
      const api = org.owner.api;
      teamId = (await createTeam(ctx, org, { 'organization-access': { 'manage-membership': true, 'manage-teams': true } })).id;
      const teamToken = await api.post(`/teams/${teamId}/authentication-token`);
      assert.equal(teamToken.status, 201, teamToken.text);
      const ownersToken = await api.post(`/teams/${org.ownersTeamId}/authentication-token`);
      assert.equal(ownersToken.status, 201, ownersToken.text);
      callers['user token'] = api;
      callers['team token'] = new ApiClient(ctx.app, teamToken.body.data.attributes.token);
      callers['owners-team token'] = new ApiClient(ctx.app, ownersToken.body.data.attributes.token);
      runId = await startRun(gated);
      await waitForRunStatus(api, runId, 'post_plan_running');
      const [stage] = await stagesOf(api, runId);
      const resultId = stage.relationships['task-results'].data[0].id as string;
      await waitUntil(() => service.tokens.has(resultId), 15_000, 'the task service never received its request');
      callback = { path: `/task-results/${resultId}/callback`, client: new ApiClient(ctx.app, service.tokens.get(resultId)![0]!) };
      // Only the statements of the requests: the job worker (which runs its own meanwhile) is stopped.
      await ctx.services.jobs.stop();
      // Every statement Kysely builds passes through its compiler: counted to show the hot paths keep theirs.
      const compile = DefaultQueryCompiler.prototype.compileQuery;
      DefaultQueryCompiler.prototype.compileQuery = function (this: DefaultQueryCompiler, ...args: Parameters<typeof compile>) {
        const compiled = compile.apply(this, args);
        compiles?.push(compiled.sql);
        return compiled;
      };
      restoreCompiler = () => (DefaultQueryCompiler.prototype.compileQuery = compile);
    });
    let restoreCompiler = () => {};
    after(async () => {
      restoreCompiler();
      await service.close();
      await ctx.close();
    });

    /** The statements of `request`, run once to warm up and then counted. */
    async function statementsOf(request: () => Promise<{ status: number; text: string }>, expectedStatus: number): Promise<string[]> {
      const warm = await request();
      assert.equal(warm.status, expectedStatus, warm.text);
      const statements: string[] = [];
      recording = statements;
      compiles = [];
      const answer = await request();
      recording = undefined;
      lastCompiles = compiles;
      compiles = undefined;
      assert.equal(answer.status, expectedStatus, answer.text);
      return statements;
    }

    let lastCompiles: string[] = [];

    function assertAtMost(route: string, statements: string[]) {
      const ceiling = CEILINGS[route]![dialect];
      if (process.env.TEAMSTAGE_PRINT_STATEMENTS) console.log(`${dialect} ${route}: ${statements.length} statements`);
      assert.ok(statements.length > 0, `${route}: nothing was recorded`);
      assert.ok(statements.length <= ceiling, `${route}: ${statements.length} statements (at most ${ceiling}):\n${statements.join('\n')}`);
    }

    for (const caller of ['user token', 'team token', 'owners-team token']) {
      it(`GET /teams/:id with a ${caller} sends at most ${CEILINGS['GET team']![dialect]} statements`, async () => {
        const statements = await statementsOf(() => callers[caller]!.get(`/teams/${teamId}`), 200);
        assertAtMost('GET team', statements);
        assert.deepEqual(lastCompiles, [], 'no statement is built with Kysely per request: they are kept (db/compiled-query.ts)');
      });

      it(`PATCH /teams/:id with a ${caller} sends at most ${CEILINGS['PATCH team']![dialect]} statements, its audit entry included`, async () => {
        let visibility = 'secret';
        const statements = await statementsOf(() => {
          visibility = visibility === 'secret' ? 'organization' : 'secret';
          return callers[caller]!.patch(`/teams/${teamId}`, { data: { type: 'teams', attributes: { visibility } } });
        }, 200);
        assert.ok(statements.some((sql) => /audit_trail/.test(sql)), `no audit entry was written:\n${statements.join('\n')}`);
        assertAtMost('PATCH team', statements);
        assert.deepEqual(lastCompiles, [], 'no statement is built with Kysely per request: they are kept (db/compiled-query.ts)');
        const shown = await callers[caller]!.get(`/teams/${teamId}`);
        assert.equal(shown.body.data.attributes.visibility, visibility, 'the PATCH was written');
      });
    }

    it(`GET /runs/:id sends at most ${CEILINGS['GET run']![dialect]} statements`, async () => {
      assertAtMost('GET run', await statementsOf(() => org.owner.api.get(`/runs/${runId}`), 200));
    });

    it(`a task result callback sends at most ${CEILINGS['task result callback']![dialect]} statements`, async () => {
      const body = { data: { type: 'task-results', attributes: { status: 'running', message: 'still checking' } } };
      assertAtMost('task result callback', await statementsOf(() => callback.client.patch(callback.path, body), 200));
    });
  });
}
