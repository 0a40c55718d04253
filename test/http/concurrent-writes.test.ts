/**
 * Issue 14 item 3, beyond teams: every read-modify-write must be atomic or retried, on both databases. Each case sends
 * requests that read the same row concurrently and checks that the outcome reads as some order of them:
 * the last answer shows what is stored, a rule checked on what was read still holds afterwards, and
 * "one at a time" stays one.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { assertStatus } from '../helpers/assertions.js';
import { addMember, createOrganization, createTeam, siteAdmin } from '../helpers/fixtures.js';
import type { MockTaskService } from '../helpers/mock-task-service.js';
import { attachRunTask, createRunTask, createWorkspace } from '../helpers/run-fixtures.js';
import { startAppWithTaskService, testDialects, type TestContext } from '../helpers/test-app.js';

const ROUNDS = 5;

/** True when some answer shows exactly the stored resource's attributes (minus timestamps). */
function someAnswerShows(answers: Array<{ body: any }>, stored: any, pick: (attributes: any) => unknown): boolean {
  const view = JSON.stringify(pick(stored.attributes));
  return answers.some((answer) => JSON.stringify(pick(answer.body.data.attributes)) === view);
}

for (const dialect of testDialects()) {
  describe(`concurrent read-modify-writes (${dialect})`, () => {
    let ctx: TestContext;
    let mock: MockTaskService;
    let close: () => Promise<void>;
    before(async () => ({ ctx, mock, close } = await startAppWithTaskService(dialect)));
    after(() => close());

    it('run task PATCHes of different attributes: the last answer shows what is stored', async () => {
      const org = await createOrganization(ctx);
      for (let round = 0; round < ROUNDS; round++) {
        const task = await createRunTask(org.owner.api, org.name, mock.url, { description: 'before' });
        const changes = [{ description: `after-${round}` }, { enabled: false }, { name: `renamed-${round}-${task.id.slice(-4)}` }, { 'hmac-key': 'k' }];
        const answers = await Promise.all(changes.map((attributes) => org.owner.api.patch(`/tasks/${task.id}`, { data: { type: 'tasks', attributes } })));
        for (const answer of answers) assertStatus(answer, 200);
        const stored = (await org.owner.api.get(`/tasks/${task.id}`)).body.data;
        assert.equal(stored.attributes.description, `after-${round}`);
        assert.equal(stored.attributes.enabled, false);
        assert.ok(
          someAnswerShows(answers, stored, (a) => [a.name, a.description, a.enabled, a.url]),
          `no answer shows what is stored: ${JSON.stringify(stored.attributes)}`,
        );
      }
    });

    it('workspace task PATCHes of enforcement level and stages: the last answer shows what is stored', async () => {
      const org = await createOrganization(ctx);
      const task = await createRunTask(org.owner.api, org.name, mock.url);
      for (let round = 0; round < ROUNDS; round++) {
        const workspace = await createWorkspace(org.owner.api, org.name);
        const attachment = await attachRunTask(org.owner.api, workspace.id, task.id);
        const changes = [{ 'enforcement-level': 'mandatory' }, { stages: ['pre_plan', 'post_apply'] }];
        const answers = await Promise.all(
          changes.map((attributes) => org.owner.api.patch(`/workspaces/${workspace.id}/tasks/${attachment.id}`, { data: { type: 'workspace-tasks', attributes } })),
        );
        for (const answer of answers) assertStatus(answer, 200);
        const stored = (await org.owner.api.get(`/workspaces/${workspace.id}/tasks/${attachment.id}`)).body.data;
        assert.equal(stored.attributes['enforcement-level'], 'mandatory');
        assert.deepEqual(stored.attributes.stages, ['pre_plan', 'post_apply']);
        assert.ok(someAnswerShows(answers, stored, (a) => [a['enforcement-level'], a.stages]), 'no answer shows what is stored');
      }
    });

    it('removing two owners at once, by either path, leaves one: exactly one removal is refused', async () => {
      const paths = ['team', 'membership', 'mixed'] as const;
      for (let round = 0; round < ROUNDS * paths.length; round++) {
        const path = paths[round % paths.length]!;
        const org = await createOrganization(ctx);
        const second = await addMember(ctx, org);
        await siteAdmin(ctx).post(`/teams/${org.ownersTeamId}/relationships/users`, { data: [{ type: 'users', id: second.username }] });
        const memberships = (await siteAdmin(ctx).get(`/organizations/${org.name}/organization-memberships`)).body.data as any[];
        const membershipOf = (userId: string) => memberships.find((membership) => membership.relationships.user.data.id === userId).id as string;
        const byTeam = (username: string) =>
          siteAdmin(ctx).delete(`/teams/${org.ownersTeamId}/relationships/users`, { data: [{ type: 'users', id: username }] });
        const byMembership = (userId: string) => siteAdmin(ctx).delete(`/organization-memberships/${membershipOf(userId)}`);
        const answers = await Promise.all([
          path === 'membership' ? byMembership(org.owner.id) : byTeam(org.owner.username),
          path === 'team' ? byTeam(second.username) : byMembership(second.id),
        ]);
        const owners = await siteAdmin(ctx).get(`/teams/${org.ownersTeamId}`);
        assert.equal(owners.body.data.attributes['users-count'], 1, `${path}: one owner remains (answers ${answers.map((a) => a.status)})`);
        assert.deepEqual(answers.map((answer) => answer.status).sort(), [204, 403], path);
      }
    });

    it('concurrent legacy team tokens and organization tokens: one at a time stays one', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const org = await createOrganization(ctx);
        const team = await createTeam(ctx, org);
        const created = await Promise.all(Array.from({ length: 5 }, () => org.owner.api.post(`/teams/${team.id}/authentication-token`, {})));
        for (const answer of created) assertStatus(answer, 201);
        const tokens = await org.owner.api.get(`/teams/${team.id}/authentication-tokens`);
        assert.equal(tokens.body.data.length, 1, 'one legacy team token');
        const organizationTokens = await Promise.all(Array.from({ length: 5 }, () => org.owner.api.post(`/organizations/${org.name}/authentication-token`, {})));
        let working = 0;
        for (const answer of organizationTokens) {
          assertStatus(answer, 201);
          if ((await org.owner.api.as(answer.body.data.attributes.token).get(`/organizations/${org.name}`)).status === 200) working += 1;
        }
        assert.equal(working, 1, 'one organization token works');
      }
    });

    it('deleting a run task while it is being attached never drops an acknowledged attachment', async () => {
      const org = await createOrganization(ctx);
      const workspaces = await Promise.all(Array.from({ length: 8 }, () => createWorkspace(org.owner.api, org.name)));
      for (let round = 0; round < ROUNDS * 4; round++) {
        const task = await createRunTask(org.owner.api, org.name, mock.url);
        const attach = (workspaceId: string) =>
          org.owner.api.post(`/workspaces/${workspaceId}/tasks`, {
            data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'advisory' }, relationships: { task: { data: { type: 'tasks', id: task.id } } } },
          });
        // The delete leaves a little after the attachments, at a different moment each round, to land while some are being made.
        const attaching = workspaces.map((workspace) => attach(workspace.id));
        await sleep(round % 8);
        const deleted = await org.owner.api.delete(`/tasks/${task.id}`);
        const attached = await Promise.all(attaching);
        const acknowledged = attached.filter((answer) => answer.status === 201);
        // Which of the two wins is the race this test makes; once it is known, every answer has one value.
        if (deleted.status === 204) {
          // The task was gone before any attachment: every one of them is refused, none acknowledged.
          for (const answer of attached) assertStatus(answer, 422);
        } else {
          // An attachment came first, so the task stays (the delete is refused) and every attachment is made.
          assertStatus(deleted, 422);
          for (const answer of attached) assertStatus(answer, 201);
          for (const answer of acknowledged) {
            const workspaceId = answer.body.data.relationships.workspace.data.id;
            assertStatus(await org.owner.api.get(`/workspaces/${workspaceId}/tasks/${answer.body.data.id}`), 200);
          }
        }
        await Promise.all(acknowledged.map((answer) => org.owner.api.delete(`/workspaces/${answer.body.data.relationships.workspace.data.id}/tasks/${answer.body.data.id}`)));
      }
    });
  });
}
