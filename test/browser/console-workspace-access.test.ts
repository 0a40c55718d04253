/**
 * Issue 36's console item in a real browser against a real server on SQLite, at 1280 and 390 px with axe: from a
 * team's page an owner gives the team write on a workspace (custom shows its keys as labelled controls first),
 * sees it on the workspace's page (beside the teams whose organization access reaches it), changes it to custom
 * keys there (starting from the keys it holds), and removes it (confirmed); the API holds each step. A member who
 * is no workspace's admin sees the access and no control; an admin of one workspace through team access is offered
 * that workspace only, and a removal the server refuses (the admin demoted meanwhile) is shown as refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, type TestOrganization } from '../helpers/fixtures.js';
import { createWorkspace } from '../helpers/run-fixtures.js';

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: TestBrowser;
let org: TestOrganization;

before(async () => {
  server = await startConsoleServer();
  browser = await launchBrowser();
  // Fixed names where the screenshots show them, so a rerun does not change the committed images needlessly.
  org = await createOrganization(server.ctx, 'acme', await createUser(server.ctx, 'alice'));
  // A workspace no team is given: the team page still offers it after the grant (and the screenshot shows the form).
  await createWorkspace(org.owner.api, org.name, { name: 'dns' });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function accessOf(teamId: string): Promise<Record<string, unknown>[]> {
  const listed = await org.owner.api.get(`/team-workspaces?filter[team][id]=${teamId}`);
  assert.equal(listed.status, 200, listed.text);
  return listed.body.data.map((row: { attributes: Record<string, unknown> }) => row.attributes);
}

async function grantByApi(teamId: string, workspaceId: string, access: string): Promise<void> {
  const created = await org.owner.api.post('/team-workspaces', {
    data: {
      type: 'team-workspaces',
      attributes: { access },
      relationships: { team: { data: { type: 'teams', id: teamId } }, workspace: { data: { type: 'workspaces', id: workspaceId } } },
    },
  });
  assert.equal(created.status, 201, created.text);
}

function section(page: Page, name: string) {
  return page.getByRole('region', { name });
}

/** Brings a section's heading to the top of the window, for its screenshot. */
async function scrollToHeading(page: Page, name: string): Promise<void> {
  await page.getByRole('heading', { name, exact: true }).evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
}

for (const [width, teamName, workspaceName] of [[1280, 'netops', 'network'], [390, 'payments', 'billing']] as const) {
  test(`at ${width} px an owner gives a team write on a workspace from its page, sees it on the workspace page, changes it and removes it`, async () => {
    const team = await createTeam(server.ctx, org, { name: teamName, visibility: 'organization' });
    const workspace = await createWorkspace(org.owner.api, org.name, { name: workspaceName });
    const page = await browser.newPage();
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await signIn(page, server.url, org.owner.token);

    await page.goto(`${server.url}/app/${org.name}/teams/${team.id}`);
    await page.getByRole('heading', { name: `Team ${teamName}` }).waitFor();
    const teamAccess = section(page, 'Workspace access');
    await teamAccess.getByText(`${teamName} has no access to single workspaces; give it some below.`).waitFor();
    const grant = page.getByRole('form', { name: 'Give access to a workspace' });
    await grant.getByLabel('Workspace', { exact: true }).selectOption({ label: workspaceName });
    // Custom shows each custom key as a labelled control; a fixed level hides them again.
    await grant.getByRole('radio', { name: /^Custom/ }).check();
    for (const label of ['Runs', 'Variables', 'State versions', 'Sentinel mocks']) await grant.getByLabel(label, { exact: true }).waitFor();
    await grant.getByRole('checkbox', { name: 'Lock and unlock the workspace' }).waitFor();
    await assertAccessible(page, `the team page's custom access at ${width} px`);
    await grant.getByRole('radio', { name: /^Write/ }).check();
    assert.equal(await grant.getByLabel('Runs', { exact: true }).count(), 0, 'custom keys hidden for a fixed level');
    await grant.getByRole('button', { name: 'Give access' }).click();
    await teamAccess.getByText(`${teamName} now has access to ${workspaceName}.`).waitFor();
    const row = teamAccess.getByRole('row').filter({ has: page.getByRole('link', { name: workspaceName }) });
    await row.getByText('Write', { exact: true }).waitFor();
    const given = await accessOf(team.id);
    assert.deepEqual(given.map((attributes) => [attributes.access, attributes.runs]), [['write', 'apply']]);
    // The workspace now has access: it is no longer offered.
    assert.equal(await grant.getByRole('option', { name: workspaceName }).count(), 0);
    await assertAccessible(page, `the team page with workspace access at ${width} px`);
    await scrollToHeading(page, 'Workspace access');
    await saveScreenshot(page, `team-workspace-access-${width}`);

    await row.getByRole('link', { name: workspaceName }).click();
    await page.getByRole('heading', { name: `Workspace ${workspaceName}` }).waitFor();
    const wsAccess = section(page, 'Team access');
    const teamRow = wsAccess.getByRole('table', { name: `Teams given access to ${workspaceName}` }).getByRole('row').filter({ hasText: teamName });
    await teamRow.getByText('Write', { exact: true }).waitFor();
    // The owners team reaches every workspace through its organization access, and is labelled so.
    const reaching = wsAccess.getByRole('table', { name: `Teams whose organization access reaches ${workspaceName}` });
    await reaching.getByRole('row').filter({ hasText: 'owners' }).getByText('Manage workspaces').waitFor();
    await assertAccessible(page, `the workspace page's team access at ${width} px`);
    await scrollToHeading(page, 'Team access');
    await saveScreenshot(page, `workspace-team-access-${width}`);

    await teamRow.getByRole('button', { name: `Change access of ${teamName}` }).click();
    const change = page.getByRole('form', { name: `Change the access of ${teamName} to ${workspaceName}` });
    await change.getByRole('radio', { name: /^Custom/ }).check();
    await change.getByLabel('Runs', { exact: true }).selectOption({ label: 'Queue plans' });
    await change.getByRole('checkbox', { name: 'Lock and unlock the workspace' }).check();
    await assertAccessible(page, `the workspace page's change form at ${width} px`);
    await scrollToHeading(page, `Change the access of ${teamName} to ${workspaceName}`);
    await saveScreenshot(page, `workspace-team-access-change-${width}`);
    await change.getByRole('button', { name: 'Save access' }).click();
    await wsAccess.getByText(`Access of ${teamName} to ${workspaceName} saved.`).waitFor();
    // Custom starts from the keys the team holds (write's), so only what was changed differs.
    await teamRow.getByText('Custom: runs Queue plans, variables Write, state versions Write, sentinel mocks Read, lock and unlock the workspace').waitFor();
    const changed = await accessOf(team.id);
    assert.deepEqual(changed.map((attributes) => [attributes.access, attributes.runs, attributes['workspace-locking'], attributes.variables]), [['custom', 'plan', true, 'write']]);

    await teamRow.getByRole('button', { name: `Remove access of ${teamName}` }).click();
    await page.getByRole('button', { name: `Remove access of ${teamName} now` }).click();
    await wsAccess.getByText(`${teamName} no longer has access to ${workspaceName}.`).waitFor();
    await wsAccess.getByText(`No team has been given access to ${workspaceName} itself; give a team access below.`).waitFor();
    assert.deepEqual(await accessOf(team.id), []);
    await assertAccessible(page, `the workspace page after removing access at ${width} px`);
    await page.close();
  });
}

test('the controls follow the API: a reader sees the access and no control; an admin of one workspace is offered that one only', async () => {
  const readers = await createTeam(server.ctx, org, { name: 'readers', visibility: 'organization' });
  const admins = await createTeam(server.ctx, org, { name: 'ws-admins', visibility: 'organization' });
  const shared = await createWorkspace(org.owner.api, org.name, { name: 'shared' });
  const other = await createWorkspace(org.owner.api, org.name, { name: 'other' });
  const mine = await createWorkspace(org.owner.api, org.name, { name: 'mine' });
  await createWorkspace(org.owner.api, org.name, { name: 'hidden' });
  const reader = await addMember(server.ctx, org);
  await addToTeam(org, readers.id, reader.username);
  await grantByApi(readers.id, shared.id, 'read');
  const admin = await addMember(server.ctx, org);
  await addToTeam(org, admins.id, admin.username);
  await grantByApi(admins.id, shared.id, 'admin');
  await grantByApi(admins.id, other.id, 'read');
  await grantByApi(admins.id, mine.id, 'admin');

  const page = await browser.newPage();
  await signIn(page, server.url, reader.token);
  await page.goto(`${server.url}/app/${org.name}/workspaces/shared`);
  const wsAccess = section(page, 'Team access');
  await wsAccess.getByRole('row').filter({ hasText: 'readers' }).getByText('Read', { exact: true }).waitFor();
  await wsAccess.getByRole('row').filter({ hasText: 'ws-admins' }).getByText('Admin', { exact: true }).waitFor();
  assert.equal(await wsAccess.getByRole('button').count(), 0, 'a reader is offered no change or removal');
  assert.equal(await page.getByRole('form', { name: 'Give a team access' }).count(), 0);
  await page.goto(`${server.url}/app/${org.name}/teams/${readers.id}`);
  const teamAccess = section(page, 'Workspace access');
  await teamAccess.getByRole('link', { name: 'shared' }).waitFor();
  assert.equal(await teamAccess.getByRole('button').count(), 0);
  assert.equal(await page.getByRole('form', { name: 'Give access to a workspace' }).count(), 0);
  await assertAccessible(page, "a reader's view of a team's workspace access");
  await page.close();

  const adminPage = await browser.newPage();
  await signIn(adminPage, server.url, admin.token);
  await adminPage.goto(`${server.url}/app/${org.name}/teams/${readers.id}`);
  const grant = adminPage.getByRole('form', { name: 'Give access to a workspace' });
  await grant.waitFor();
  // Admin of `shared` (which readers already has) and `mine`, reader of `other`, nothing on `hidden`: `mine` only.
  await section(adminPage, 'Workspace access').getByRole('button', { name: 'Change access to shared' }).waitFor();
  assert.deepEqual(await grant.getByRole('option').allInnerTexts(), ['Choose a workspace', 'mine']);
  await adminPage.goto(`${server.url}/app/${org.name}/teams/${admins.id}`);
  const adminRows = section(adminPage, 'Workspace access');
  await adminRows.getByRole('button', { name: 'Change access to shared' }).waitFor();
  assert.equal(await adminRows.getByRole('button', { name: 'Change access to other' }).count(), 0, 'a reader of `other` may not change its access');

  // The server stays the judge: demoted to read while the page is open, the admin's removal is refused, said so, and nothing changes.
  await adminPage.goto(`${server.url}/app/${org.name}/workspaces/shared`);
  const sharedAccess = section(adminPage, 'Team access');
  await sharedAccess.getByRole('button', { name: 'Remove access of readers' }).click();
  const own = await org.owner.api.get(`/team-workspaces?filter[team][id]=${admins.id}`);
  const ownShared = own.body.data.find((row: { relationships: { workspace: { data: { id: string } } } }) => row.relationships.workspace.data.id === shared.id);
  const demoted = await org.owner.api.patch(`/team-workspaces/${ownShared.id}`, { data: { type: 'team-workspaces', attributes: { access: 'read' } } });
  assert.equal(demoted.status, 200, demoted.text);
  await adminPage.getByRole('button', { name: 'Remove access of readers now' }).click();
  await sharedAccess.getByRole('alert').getByText(/^Not allowed:/).waitFor();
  await assertAccessible(adminPage, 'a refused removal');
  assert.deepEqual((await accessOf(readers.id)).map((attributes) => attributes.access), ['read']);
  await adminPage.close();

  // A team whose organization access reaches every workspace is told so where its workspace access is listed.
  const ownerPage = await browser.newPage();
  await signIn(ownerPage, server.url, org.owner.token);
  await ownerPage.goto(`${server.url}/app/${org.name}/teams/${org.ownersTeamId}`);
  await section(ownerPage, 'Workspace access').getByText(/through it \(Manage workspaces\) this team already has admin on every workspace\./).waitFor();
  await ownerPage.goto(`${server.url}/app/${org.name}/teams/${readers.id}`);
  await section(ownerPage, 'Workspace access').getByRole('link', { name: 'shared' }).waitFor();
  assert.equal(await section(ownerPage, 'Workspace access').getByText(/already has/).count(), 0);
  await ownerPage.close();
});
