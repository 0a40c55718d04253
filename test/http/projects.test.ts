/**
 * Projects and team access to projects (issue 36): HCP's `/organizations/:org/projects`, `/projects/:id` and
 * `/team-projects` APIs; the default project every organization has and every workspace lands in; a workspace's
 * `project` relationship, created in and moved between projects; and what each project access level lets a
 * member whose only standing is that access do with the project's workspaces. 404 for what the caller cannot
 * read, 403 for an action refused on what it can. Both databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertStatus } from '../helpers/assertions.js';
import { addMember, addToTeam, createOrganization, createTeam, type TestOrganization, type TestUser } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, createRunTask, createWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { ScriptedTaskService, startListeningApp } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, testDialects, type TestContext } from '../helpers/test-app.js';

const JSON_BODY = { 'content-type': 'application/json' };

const grantBody = (teamId: string, projectId: string, attributes: Record<string, unknown>) => ({
  data: {
    type: 'team-projects',
    attributes,
    relationships: { team: { data: { type: 'teams', id: teamId } }, project: { data: { type: 'projects', id: projectId } } },
  },
});

async function createProject(org: TestOrganization, attributes: Record<string, unknown> = {}): Promise<{ id: string; name: string; body: any }> {
  const name = (attributes.name as string | undefined) ?? `p-${Math.random().toString(36).slice(2, 10)}`;
  const created = await org.owner.api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name, ...attributes } } });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.data.id, name, body: created.body };
}

async function createWorkspaceIn(org: TestOrganization, projectId: string, api = org.owner.api) {
  return api.post(`/organizations/${org.name}/workspaces`, {
    data: { type: 'workspaces', attributes: { name: `ws-${Math.random().toString(36).slice(2, 10)}` }, relationships: { project: { data: { type: 'projects', id: projectId } } } },
  });
}

const moveBody = (projectId: string) => ({ data: { type: 'workspaces', relationships: { project: { data: { type: 'projects', id: projectId } } } } });

/** A member of a new team with no organization access, and the team's access `attributes` to `projectId`. */
async function memberGranted(ctx: TestContext, org: TestOrganization, projectId: string, attributes: Record<string, unknown>): Promise<TestUser & { teamId: string; grantId: string }> {
  const member = await addMember(ctx, org);
  const team = await createTeam(ctx, org, { visibility: 'organization' });
  await addToTeam(org, team.id, member.username);
  const granted = await org.owner.api.post('/team-projects', grantBody(team.id, projectId, attributes));
  assert.equal(granted.status, 201, granted.text);
  return { ...member, teamId: team.id, grantId: granted.body.data.id };
}

const runIds = (run: any) => ({ runId: run.data.id as string });

for (const dialect of testDialects()) {
  describe(`projects and team access to projects (${dialect})`, { timeout: 180_000 }, () => {
    let ctx: TestContext;
    let service: ScriptedTaskService;
    before(async () => {
      ctx = await startListeningApp(dialect, { ...SIMULATED_PLAN_CHANGES });
      service = await ScriptedTaskService.start();
    });
    after(async () => {
      await service.close();
      await ctx.close();
    });

    it("HCP's projects API: a Default Project from birth, create, list with filter[names] and q, show, update, delete as HCP refuses it", async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const listed = await api.get(`/organizations/${org.name}/projects`);
      assertStatus(listed, 200);
      assert.deepEqual(listed.body.data.map((item: any) => item.attributes.name), ['Default Project']);
      const defaultProject = listed.body.data[0];
      assert.equal(defaultProject.attributes.permissions['can-destroy'], false);

      const first = await createProject(org, { name: 'network', description: 'the network team' });
      assert.match(first.id, /^prj-/);
      const attributes = first.body.data.attributes;
      assert.deepEqual(
        [attributes.name, attributes.description, attributes['workspace-count'], attributes['team-count'], attributes['default-execution-mode'], attributes['auto-destroy-activity-duration']],
        ['network', 'the network team', 0, 0, 'remote', null],
      );
      assert.equal(first.body.data.relationships.organization.data.id, org.name);
      await createProject(org, { name: 'data' });
      assertError(await api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'Network' } } }), 422, /already been taken/);
      assertError(await api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'no/slash' } } }), 422, /Name may only contain/);
      assertError(await api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'later', 'auto-destroy-activity-duration': '2w' } } }), 422, /incorrect format/);

      const all = await api.get(`/organizations/${org.name}/projects`);
      assert.deepEqual(all.body.data.map((item: any) => item.attributes.name), ['data', 'Default Project', 'network']);
      assert.equal(all.body.meta.pagination['total-count'], 3);
      assert.deepEqual((await api.get(`/organizations/${org.name}/projects?q=default`)).body.data.map((item: any) => item.id), [defaultProject.id]);
      assert.deepEqual((await api.get(`/organizations/${org.name}/projects?filter%5Bnames%5D=network,data`)).body.data.map((item: any) => item.attributes.name), ['data', 'network']);
      assert.deepEqual((await api.get(`/organizations/${org.name}/projects?page%5Bsize%5D=1&page%5Bnumber%5D=2`)).body.data.map((item: any) => item.attributes.name), ['Default Project']);

      const updated = await api.patch(`/projects/${first.id}`, { data: { type: 'projects', attributes: { name: 'network core', description: 'changed', 'auto-destroy-activity-duration': '14d' } } });
      assertStatus(updated, 200);
      assert.deepEqual([updated.body.data.attributes.name, updated.body.data.attributes.description, updated.body.data.attributes['auto-destroy-activity-duration']], ['network core', 'changed', '14d']);
      assert.deepEqual((await api.get(`/projects/${first.id}`)).body.data.attributes.name, 'network core');

      // Every workspace is in a project: the default one unless named; created in one, moved to another.
      const plain = await createWorkspace(api, org.name);
      assert.equal(plain.body.data.relationships.project.data.id, defaultProject.id);
      const inProject = await createWorkspaceIn(org, first.id);
      assertStatus(inProject, 201);
      assert.equal(inProject.body.data.relationships.project.data.id, first.id);
      assert.equal((await api.get(`/projects/${first.id}`)).body.data.attributes['workspace-count'], 1);
      const filtered = await api.get(`/organizations/${org.name}/workspaces?filter%5Bproject%5D%5Bid%5D=${first.id}`);
      assert.deepEqual(filtered.body.data.map((item: any) => item.id), [inProject.body.data.id]);
      assertError(await createWorkspaceIn(org, 'prj-nope'), 404, /project not found/);

      // HCP refuses to delete a project that holds workspaces, and the default project; nothing changes.
      assertError(await api.delete(`/projects/${first.id}`), 409, /contains 1 workspace/);
      assertError(await api.delete(`/projects/${defaultProject.id}`), 409, /default project/);
      const moved = await api.patch(`/workspaces/${inProject.body.data.id}`, moveBody(defaultProject.id));
      assertStatus(moved, 200);
      assert.equal(moved.body.data.relationships.project.data.id, defaultProject.id);
      assert.equal((await api.get(`/projects/${defaultProject.id}`)).body.data.attributes['workspace-count'], 2);
      assertStatus(await api.delete(`/projects/${first.id}`), 204);
      assertError(await api.get(`/projects/${first.id}`), 404, /project not found/);
      assertError(await api.delete(`/projects/${first.id}`), 404);
    });

    it("HCP's team project access API: add, read, list, update, remove; fixed levels echo their keys; custom keys kept; bad values 422 with nothing stored", async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const project = await createProject(org);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      const other = await createTeam(ctx, org, { visibility: 'organization' });

      const added = await api.post('/team-projects', grantBody(team.id, project.id, { access: 'maintain' }));
      assertStatus(added, 201);
      const id = added.body.data.id as string;
      assert.equal(added.body.data.type, 'team-projects');
      assert.equal(added.body.data.attributes.access, 'maintain');
      assert.deepEqual(added.body.data.attributes['project-access'], { settings: 'read', teams: 'none', 'variable-sets': 'read' });
      assert.deepEqual(added.body.data.attributes['workspace-access'], {
        runs: 'apply', variables: 'write', 'state-versions': 'write', 'sentinel-mocks': 'read', create: true, locking: true, move: false, delete: true, 'run-tasks': true, 'policy-overrides': true,
      });
      assert.deepEqual([added.body.data.relationships.team.data.id, added.body.data.relationships.project.data.id], [team.id, project.id]);
      assert.deepEqual((await api.get(`/team-projects/${id}`)).body.data, added.body.data);
      assert.equal((await api.get(`/projects/${project.id}`)).body.data.attributes['team-count'], 1);

      assertError(await api.post('/team-projects', grantBody(other.id, project.id, { access: 'owner' })), 422, /access must be one of/);
      assertError(await api.post('/team-projects', grantBody(other.id, project.id, { access: 'custom', 'project-access': { teams: 'all' } })), 422, /teams must be one of/);
      assertError(await api.post('/team-projects', grantBody(other.id, project.id, { access: 'custom', 'workspace-access': { create: 'yes' } })), 422, /create must be true or false/);
      assertError(await api.post('/team-projects', grantBody(team.id, project.id, { access: 'read' })), 422, /already been taken/);
      assertError(await api.post('/team-projects', grantBody('team-nope', project.id, { access: 'read' })), 404, /team not found/);
      assertError(await api.post('/team-projects', grantBody(other.id, 'prj-nope', { access: 'read' })), 404, /project not found/);
      assert.equal((await api.get(`/team-projects?filter%5Bproject%5D%5Bid%5D=${project.id}`)).body.data.length, 1, 'nothing stored by a refused request');

      const custom = await api.post('/team-projects', grantBody(other.id, project.id, {
        access: 'custom', 'project-access': { settings: 'update', teams: 'manage' }, 'workspace-access': { runs: 'plan', create: true, 'run-tasks': true },
      }));
      assertStatus(custom, 201);
      assert.deepEqual(custom.body.data.attributes['project-access'], { settings: 'update', teams: 'manage', 'variable-sets': 'none' });
      assert.deepEqual(custom.body.data.attributes['workspace-access'], {
        runs: 'plan', variables: 'none', 'state-versions': 'none', 'sentinel-mocks': 'none', create: true, locking: false, move: false, delete: false, 'run-tasks': true, 'policy-overrides': false,
      });

      const listed = await api.get(`/team-projects?filter%5Bproject%5D%5Bid%5D=${project.id}`);
      assert.deepEqual(listed.body.data.map((item: any) => item.id), [id, custom.body.data.id]);
      assert.equal(listed.body.meta.pagination['total-count'], 2);
      assert.deepEqual((await api.get(`/team-projects?filter%5Bteam%5D%5Bid%5D=${team.id}`)).body.data.map((item: any) => item.id), [id]);
      assertError(await api.get('/team-projects'), 422, /filter\[project\]\[id\]/);
      assertError(await api.get('/team-projects?filter%5Bproject%5D%5Bid%5D=prj-nope'), 404);

      // A custom update keeps what it does not send; a fixed level resets every key.
      const changed = await api.patch(`/team-projects/${custom.body.data.id}`, { data: { type: 'team-projects', attributes: { 'workspace-access': { runs: 'apply' } } } });
      assertStatus(changed, 200);
      assert.deepEqual([changed.body.data.attributes['workspace-access'].runs, changed.body.data.attributes['workspace-access'].create, changed.body.data.attributes['project-access'].teams], ['apply', true, 'manage']);
      const read = await api.patch(`/team-projects/${custom.body.data.id}`, { data: { type: 'team-projects', attributes: { access: 'read' } } });
      assert.deepEqual([read.body.data.attributes.access, read.body.data.attributes['workspace-access'].runs, read.body.data.attributes['project-access'].teams], ['read', 'read', 'none']);

      assertStatus(await api.delete(`/team-projects/${id}`), 204);
      assertError(await api.get(`/team-projects/${id}`), 404, /team project access not found/);
      const trail = await ctx.handle.db.selectFrom('audit_trail').selectAll().where('resource_type', '=', 'team_project').where('resource_id', '=', id).orderBy('seq').execute();
      assert.deepEqual(trail.map((row) => row.action), ['create', 'destroy']);
      const created = JSON.parse(trail[0]!.meta as string);
      assert.deepEqual([created['team-id'], created['project-id'], created.after.access, created.after['workspace-access.create']], [team.id, project.id, 'maintain', true]);
    });

    it('a team with write on a project queues and applies in its workspaces, and gets 404 on a workspace of another project', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const project = await createProject(org);
      const otherProject = await createProject(org);
      const mine = await createRunnableWorkspace(ctx, api, org.name);
      assertStatus(await api.patch(`/workspaces/${mine.id}`, moveBody(project.id)), 200);
      const second = await createRunnableWorkspace(ctx, api, org.name);
      assertStatus(await api.patch(`/workspaces/${second.id}`, moveBody(otherProject.id)), 200);
      const writer = await memberGranted(ctx, org, project.id, { access: 'write' });

      const shown = await writer.api.get(`/workspaces/${mine.id}`);
      assertStatus(shown, 200);
      const permissions = shown.body.data.attributes.permissions;
      assert.deepEqual(
        [permissions['can-queue-run'], permissions['can-queue-apply'], permissions['can-update'], permissions['can-destroy'], permissions['can-lock']],
        [true, true, false, false, true],
      );
      const listed = await writer.api.get(`/organizations/${org.name}/workspaces`);
      assert.deepEqual(listed.body.data.map((item: any) => item.id), [mine.id], "only the workspaces of its team's project");
      assert.deepEqual((await writer.api.get(`/organizations/${org.name}/projects`)).body.data.map((item: any) => item.id), [project.id]);
      assertError(await writer.api.get(`/workspaces/${second.id}`), 404, /workspace not found/);
      assertError(await writer.api.get(`/projects/${otherProject.id}`), 404, /project not found/);
      assertError(await writer.api.post('/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: second.id } } } } }), 404);

      const run = runIds(await createRun(writer.api, mine.id, { message: 'by the project team' }));
      await waitForRunStatus(writer.api, run.runId, 'planned');
      assertStatus(await writer.api.post(`/runs/${run.runId}/actions/apply`, {}, JSON_BODY), 202);
      await waitForRunStatus(writer.api, run.runId, 'applied');

      // What write does not give: settings, the project's settings and team access, new workspaces in it (403: it reads them).
      assertError(await writer.api.patch(`/workspaces/${mine.id}`, { data: { type: 'workspaces', attributes: { description: 'mine now' } } }), 403);
      assertError(await writer.api.patch(`/projects/${project.id}`, { data: { type: 'projects', attributes: { description: 'mine' } } }), 403);
      assertError(await writer.api.delete(`/projects/${project.id}`), 403);
      assertError(await createWorkspaceIn(org, project.id, writer.api), 403, /create/);
      assertError(await createWorkspaceIn(org, otherProject.id, writer.api), 404, /project not found/);
      const team = await createTeam(ctx, org, { visibility: 'organization' });
      assertError(await writer.api.post('/team-projects', grantBody(team.id, project.id, { access: 'admin' })), 403, /teams access 'manage'/);
      assertError(await writer.api.post('/team-projects', grantBody(team.id, otherProject.id, { access: 'admin' })), 404);
    });

    it('each project access level against the workspace and project actions: 403 for what it does not give, 404 with no access', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const project = await createProject(org);
      const workspace = await createRunnableWorkspace(ctx, api, org.name);
      assertStatus(await api.patch(`/workspaces/${workspace.id}`, moveBody(project.id)), 200);
      const task = await createRunTask(api, org.name, service.url);
      const callers = {
        read: await memberGranted(ctx, org, project.id, { access: 'read' }),
        write: await memberGranted(ctx, org, project.id, { access: 'write' }),
        maintain: await memberGranted(ctx, org, project.id, { access: 'maintain' }),
        admin: await memberGranted(ctx, org, project.id, { access: 'admin' }),
        customPlan: await memberGranted(ctx, org, project.id, { access: 'custom', 'workspace-access': { runs: 'plan', create: true } }),
        customSettings: await memberGranted(ctx, org, project.id, { access: 'custom', 'project-access': { settings: 'update', teams: 'manage' } }),
        none: await addMember(ctx, org),
      };
      const expected: Record<keyof typeof callers, Record<string, number>> = {
        read: { show: 200, queue: 403, discard: 403, attach: 403, settings: 403, create: 403, project: 403, teams: 403 },
        write: { show: 200, queue: 201, discard: 202, attach: 403, settings: 403, create: 403, project: 403, teams: 403 },
        maintain: { show: 200, queue: 201, discard: 202, attach: 201, settings: 200, create: 201, project: 403, teams: 403 },
        admin: { show: 200, queue: 201, discard: 202, attach: 201, settings: 200, create: 201, project: 200, teams: 201 },
        customPlan: { show: 200, queue: 201, discard: 403, attach: 403, settings: 403, create: 201, project: 403, teams: 403 },
        customSettings: { show: 200, queue: 403, discard: 403, attach: 403, settings: 403, create: 403, project: 200, teams: 201 },
        none: { show: 404, queue: 404, discard: 404, attach: 404, settings: 404, create: 404, project: 404, teams: 404 },
      };
      const actual: Record<string, Record<string, number>> = {};
      for (const [name, caller] of Object.entries(callers)) {
        const answers: Record<string, number> = {};
        answers.show = (await caller.api.get(`/workspaces/${workspace.id}`)).status;
        const queued = await caller.api.post('/runs', { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.id } } } } });
        answers.queue = queued.status;
        if (queued.status === 201) {
          await waitForRunStatus(api, queued.body.data.id, 'planned');
          assertStatus(await api.post(`/runs/${queued.body.data.id}/actions/discard`, {}, JSON_BODY), 202);
        }
        const run = runIds(await createRun(api, workspace.id));
        await waitForRunStatus(api, run.runId, 'planned');
        answers.discard = (await caller.api.post(`/runs/${run.runId}/actions/discard`, {}, JSON_BODY)).status;
        if (answers.discard !== 202) assertStatus(await api.post(`/runs/${run.runId}/actions/discard`, {}, JSON_BODY), 202);
        const attached = await caller.api.post(`/workspaces/${workspace.id}/tasks`, {
          data: { type: 'workspace-tasks', attributes: { 'enforcement-level': 'advisory' }, relationships: { task: { data: { type: 'tasks', id: task.id } } } },
        });
        answers.attach = attached.status;
        if (attached.status === 201) assertStatus(await api.delete(`/workspaces/${workspace.id}/tasks/${attached.body.data.id}`), 204);
        answers.settings = (await caller.api.patch(`/workspaces/${workspace.id}`, { data: { type: 'workspaces', attributes: { description: name } } })).status;
        const created = await createWorkspaceIn(org, project.id, caller.api);
        answers.create = created.status;
        if (created.status === 201) {
          assert.equal(created.body.data.attributes.permissions['can-update'], name === 'maintain' || name === 'admin', `${name}: its permissions count the project access`);
        }
        answers.project = (await caller.api.patch(`/projects/${project.id}`, { data: { type: 'projects', attributes: { description: name } } })).status;
        const team = await createTeam(ctx, org, { visibility: 'organization' });
        answers.teams = (await caller.api.post('/team-projects', grantBody(team.id, project.id, { access: 'read' }))).status;
        actual[name] = answers;
      }
      assert.deepEqual(actual, expected);
    });

    it('moving a workspace changes who may act on it; moving needs move on both projects', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const network = await createProject(org);
      const data = await createProject(org);
      const workspace = await createRunnableWorkspace(ctx, api, org.name);
      assertStatus(await api.patch(`/workspaces/${workspace.id}`, moveBody(network.id)), 200);
      const networkTeam = await memberGranted(ctx, org, network.id, { access: 'write' });
      const dataTeam = await memberGranted(ctx, org, data.id, { access: 'write' });
      const mover = await memberGranted(ctx, org, network.id, { access: 'admin' });

      assertStatus(await networkTeam.api.get(`/workspaces/${workspace.id}`), 200);
      assertError(await dataTeam.api.get(`/workspaces/${workspace.id}`), 404);
      // An admin of the source project alone may not move it to a project where it holds nothing (404), nor
      // where it cannot move workspaces (403); the write team may not move it at all.
      assertError(await mover.api.patch(`/workspaces/${workspace.id}`, moveBody(data.id)), 404, /project not found/);
      assertStatus(await api.post('/team-projects', grantBody(mover.teamId, data.id, { access: 'write' })), 201);
      assertError(await mover.api.patch(`/workspaces/${workspace.id}`, moveBody(data.id)), 403, /move/);
      assertError(await networkTeam.api.patch(`/workspaces/${workspace.id}`, moveBody(data.id)), 403);
      assert.equal((await api.get(`/workspaces/${workspace.id}`)).body.data.relationships.project.data.id, network.id, 'nothing moved');
      const upgraded = await api.get(`/team-projects?filter%5Bteam%5D%5Bid%5D=${mover.teamId}`);
      const onData = upgraded.body.data.find((item: any) => item.relationships.project.data.id === data.id);
      assertStatus(await api.patch(`/team-projects/${onData.id}`, { data: { type: 'team-projects', attributes: { access: 'admin' } } }), 200);
      const moved = await mover.api.patch(`/workspaces/${workspace.id}`, moveBody(data.id));
      assertStatus(moved, 200);
      assert.equal(moved.body.data.relationships.project.data.id, data.id);

      assertError(await networkTeam.api.get(`/workspaces/${workspace.id}`), 404, /workspace not found/);
      const run = runIds(await createRun(dataTeam.api, workspace.id));
      await waitForRunStatus(dataTeam.api, run.runId, 'planned');
      assertStatus(await dataTeam.api.post(`/runs/${run.runId}/actions/apply`, {}, JSON_BODY), 202);
      await waitForRunStatus(dataTeam.api, run.runId, 'applied');
      assertError(await networkTeam.api.get(`/runs/${run.runId}`), 404);
    });

    it('manage-projects creates and manages every project; read-projects reads every project and changes none', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const project = await createProject(org);
      const managerTeam = await createTeam(ctx, org, { visibility: 'organization', 'organization-access': { 'manage-projects': true, 'manage-workspaces': true } });
      const readerTeam = await createTeam(ctx, org, { visibility: 'organization', 'organization-access': { 'read-projects': true, 'read-workspaces': true } });
      const manager = await addMember(ctx, org);
      const reader = await addMember(ctx, org);
      const nobody = await addMember(ctx, org);
      await addToTeam(org, managerTeam.id, manager.username);
      await addToTeam(org, readerTeam.id, reader.username);
      const other = await createTeam(ctx, org, { visibility: 'organization' });

      const made = await manager.api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'by-manager' } } });
      assertStatus(made, 201);
      assertStatus(await manager.api.patch(`/projects/${project.id}`, { data: { type: 'projects', attributes: { description: 'managed' } } }), 200);
      assertStatus(await manager.api.post('/team-projects', grantBody(other.id, project.id, { access: 'read' })), 201);
      assertStatus(await manager.api.delete(`/projects/${made.body.data.id}`), 204);

      assert.equal((await reader.api.get(`/organizations/${org.name}/projects`)).body.data.length, 2);
      assertStatus(await reader.api.get(`/projects/${project.id}`), 200);
      assertError(await reader.api.patch(`/projects/${project.id}`, { data: { type: 'projects', attributes: { description: 'read' } } }), 403);
      assertError(await reader.api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'by-reader' } } }), 403, /manage-projects/);

      assert.deepEqual((await nobody.api.get(`/organizations/${org.name}/projects`)).body.data, []);
      assertError(await nobody.api.get(`/projects/${project.id}`), 404);
      assertError(await nobody.api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'by-nobody' } } }), 403);
    });

    it('a workspace an older node made without a project is in the default project, and counts there', async () => {
      const org = await createOrganization(ctx);
      const api = org.owner.api;
      const workspace = await createWorkspace(api, org.name);
      await ctx.handle.db.updateTable('workspaces').set({ project_id: null }).where('id', '=', workspace.id).execute();
      const defaultProject = (await api.get(`/organizations/${org.name}/projects`)).body.data[0];
      assert.equal((await api.get(`/workspaces/${workspace.id}`)).body.data.relationships.project.data.id, defaultProject.id);
      assert.equal((await api.get(`/projects/${defaultProject.id}`)).body.data.attributes['workspace-count'], 1);
      const reader = await memberGranted(ctx, org, defaultProject.id, { access: 'read' });
      assertStatus(await reader.api.get(`/workspaces/${workspace.id}`), 200);
    });
  });
}
