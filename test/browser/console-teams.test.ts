/**
 * Issue 17's team acceptance in a real browser against a real server on SQLite: create a team; a
 * forbidden organization-access combination shows the server's error at its checkbox; fix it and save;
 * add and remove a member; create a team token and see it once; a member without rights gets "not found"
 * on a secret team's URL and is offered no controls on a visible one. axe on each page; screenshots of the
 * team list and team page for the README.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, type TestOrganization } from '../helpers/fixtures.js';

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: TestBrowser;
let org: TestOrganization;

before(async () => {
  server = await startConsoleServer();
  browser = await launchBrowser();
  // Fixed names where the screenshots show them, so a rerun does not change the committed images needlessly.
  org = await createOrganization(server.ctx, 'acme', await createUser(server.ctx, 'alice'));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function openTeams(page: Page): Promise<void> {
  await page.goto(`${server.url}/app/${org.name}/teams`);
  await page.getByRole('heading', { name: `Teams of ${org.name}` }).waitFor();
}

test('an owner creates a team, is refused a forbidden access combination at the field, fixes it and saves', async () => {
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await openTeams(page);
  await page.getByRole('link', { name: 'owners' }).waitFor();
  await page.getByLabel('Team name').fill('platform');
  await page.getByRole('radio', { name: /Visible to every member/ }).check();
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.getByRole('heading', { name: 'Team platform' }).waitFor();
  await assertAccessible(page, 'a new team page');

  // The rule is shown before saving and marked once broken; the server's refusal lands at the checkbox.
  const manageProjects = page.getByRole('checkbox', { name: 'Manage projects' });
  await manageProjects.check();
  await page.getByText('Not met: Needs Manage workspaces.').waitFor();
  await page.getByRole('button', { name: 'Save organization access' }).click();
  const fieldError = page.locator('#access-manage-projects-error');
  await fieldError.waitFor();
  assert.match(await fieldError.innerText(), /manage-projects requires manage-workspaces/);
  assert.equal(await manageProjects.getAttribute('aria-invalid'), 'true');
  assert.match((await manageProjects.getAttribute('aria-describedby')) ?? '', /access-manage-projects-error/);
  await assertAccessible(page, 'the team page with a refused access change');
  const refused = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=platform`);
  assert.equal(refused.body.data[0].attributes['organization-access']['manage-projects'], false, 'nothing saved');

  await page.getByRole('checkbox', { name: 'Manage workspaces' }).check();
  await page.getByRole('button', { name: 'Save organization access' }).click();
  await page.getByText('Organization access saved.').waitFor();
  assert.equal(await fieldError.count(), 0);
  const saved = await org.owner.api.get(`/organizations/${org.name}/teams?filter[names]=platform`);
  const access = saved.body.data[0].attributes['organization-access'];
  assert.deepEqual([access['manage-projects'], access['manage-workspaces'], access['read-workspaces']], [true, true, true]);
  // manage-workspaces grants read-workspaces: shown checked and fixed.
  assert.equal(await page.getByRole('checkbox', { name: 'Read workspaces' }).isDisabled(), true);
  await page.close();
});

test('an owner renames a team and changes its visibility and token management; a taken name is refused at the field', async () => {
  const other = await createTeam(server.ctx, org, { name: 'taken-name' });
  const team = await createTeam(server.ctx, org, { name: 'to-rename', visibility: 'secret' });
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/teams/${team.id}`);
  await page.getByRole('heading', { name: 'Team to-rename' }).waitFor();
  await page.getByLabel('Team name').fill(other.name);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.locator('#team-name-error').waitFor();
  assert.match(await page.locator('#team-name-error').innerText(), /taken/i);

  await page.getByLabel('Team name').fill('renamed');
  await page.getByRole('radio', { name: /Visible to every member/ }).check();
  await page.getByRole('checkbox', { name: /may create and revoke its tokens/ }).check();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('heading', { name: 'Team renamed' }).waitFor();
  const shown = await org.owner.api.get(`/teams/${team.id}`);
  assert.equal(shown.body.data.attributes.name, 'renamed');
  assert.equal(shown.body.data.attributes.visibility, 'organization');
  assert.equal(shown.body.data.attributes['allow-member-token-management'], true);
  await page.close();
});

test('an owner adds and removes a member; the list counts leave out the team token service account', async () => {
  const member = await addMember(server.ctx, org, await createUser(server.ctx, 'carol'));
  const team = await createTeam(server.ctx, org, { name: 'people', visibility: 'organization' });
  const issued = await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, {});
  assert.equal(issued.status, 201, issued.text);
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/teams/${team.id}`);
  await page.getByRole('heading', { name: 'Team people' }).waitFor();
  await page.getByText('This team has no members yet.').waitFor();
  await page.getByText(/service account, which its team token acts as/).waitFor();

  await page.getByLabel('Add a member of the organization').selectOption({ label: `${member.username} (${member.email})` });
  await page.getByRole('button', { name: 'Add to team' }).click();
  await page.getByRole('cell', { name: member.username, exact: true }).waitFor();
  const added = await org.owner.api.get(`/teams/${team.id}`);
  assert.equal(added.body.data.attributes['non-service-users-count'], 1);

  await openTeams(page);
  const row = page.getByRole('row', { name: /people/ });
  assert.match(await row.innerText(), /Visible to the organization\s+1$/);
  await page.getByText(/Member counts leave out the api-team_ service accounts/).waitFor();
  await assertAccessible(page, 'the team list');
  await saveScreenshot(page, 'team-list', { fullPage: true });

  await page.getByRole('link', { name: 'people', exact: true }).click();
  await page.getByRole('button', { name: `Remove ${member.username}` }).click();
  await page.getByRole('button', { name: `Remove ${member.username} now` }).click();
  await page.getByText(`${member.username} removed from the team.`).waitFor();
  await page.getByText('This team has no members yet.').waitFor();
  const removed = await org.owner.api.get(`/teams/${team.id}`);
  assert.equal(removed.body.data.attributes['non-service-users-count'], 0);
  await page.close();
});

test('a team token is shown once with a copy button, listed without its secret, and revoked', async () => {
  const team = await createTeam(server.ctx, org, { name: 'deployers', visibility: 'organization' });
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/teams/${team.id}`);
  await page.getByText('This team has no tokens.').waitFor();
  await page.getByLabel('New token description').fill('ci pipeline');
  await page.getByRole('button', { name: 'Create a team token' }).click();
  const secretBox = page.locator('#new-token-secret');
  await secretBox.waitFor();
  const secret = (await secretBox.innerText()).trim();
  assert.ok(secret.length > 20);
  await page.getByRole('button', { name: 'Copy token' }).waitFor();
  await page.getByRole('cell', { name: 'ci pipeline', exact: true }).waitFor();

  // The secret works, and is never on the page again once hidden or reloaded.
  const asTeam = org.owner.api.as(secret);
  assert.equal((await asTeam.get('/account/details')).status, 200);
  await page.getByRole('button', { name: 'Done, hide it' }).click();
  assert.equal(await page.getByText(secret).count(), 0);
  await page.reload();
  await page.getByRole('cell', { name: 'ci pipeline', exact: true }).waitFor();
  assert.equal((await page.content()).includes(secret), false);
  await assertAccessible(page, 'the team page with a token');

  await page.getByRole('button', { name: 'Revoke ci pipeline' }).click();
  await page.getByRole('button', { name: 'Revoke now' }).click();
  await page.getByText('This team has no tokens.').waitFor();
  assert.equal((await asTeam.get('/account/details')).status, 401);
  await page.close();
});

test('a member without rights: "not found" on a secret team, no controls on a visible one', async () => {
  const member = await addMember(server.ctx, org, await createUser(server.ctx, 'dave'));
  const secret = await createTeam(server.ctx, org, { name: 'security', visibility: 'secret' });
  // Token management off: by default (as in HCP Terraform) a team's members may manage its tokens.
  const visible = await createTeam(server.ctx, org, { name: 'open-team', visibility: 'organization', 'allow-member-token-management': false });
  await addToTeam(org, visible.id, member.username);
  const page = await browser.newPage();
  await signIn(page, server.url, member.token);

  await page.goto(`${server.url}/app/${org.name}/teams/${secret.id}`);
  await page.getByText('Team: not found or not visible to you.').waitFor();
  await assertAccessible(page, 'a hidden team');

  await openTeams(page);
  await page.getByRole('link', { name: 'open-team' }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'security' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Create team' }).count(), 0);

  await page.getByRole('link', { name: 'open-team' }).click();
  await page.getByRole('heading', { name: 'Team open-team' }).waitFor();
  await page.getByRole('cell', { name: member.username, exact: true }).waitFor();
  for (const name of ['Save settings', 'Save organization access', 'Add to team', 'Create a team token', `Remove ${member.username}`]) {
    assert.equal(await page.getByRole('button', { name }).count(), 0, `${name} is not offered`);
  }
  assert.equal(await page.getByRole('checkbox', { name: 'Manage teams' }).isDisabled(), true);
  await assertAccessible(page, 'a team page for a member without rights');
  await page.close();
});

test('the team list searches by name (q) and says when nothing matches', async () => {
  await createTeam(server.ctx, org, { name: 'search-alpha', visibility: 'organization' });
  await createTeam(server.ctx, org, { name: 'search-beta', visibility: 'organization' });
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await openTeams(page);
  await page.getByLabel('Search teams by name').fill('search-al');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: 'search-beta' }).waitFor({ state: 'detached' });
  assert.deepEqual(await page.locator('table.list tbody a').allInnerTexts(), ['search-alpha']);
  await page.getByLabel('Search teams by name').fill('no-such-team');
  await page.keyboard.press('Enter');
  await page.getByText('No team you can see matches “no-such-team”.').waitFor();
  await assertAccessible(page, 'an empty search');
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('link', { name: 'search-beta' }).waitFor();
  await assertFitsPhoneWidth(page, 'the team list');
  await page.close();
});

test('the team page at phone width, and its screenshot', async () => {
  const team = await createTeam(server.ctx, org, { name: 'app-developers', visibility: 'organization', 'organization-access': { 'manage-workspaces': true, 'manage-run-tasks': true } });
  const member = await addMember(server.ctx, org, await createUser(server.ctx, 'bob'));
  await addToTeam(org, team.id, member.username);
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/teams/${team.id}`);
  await page.getByRole('heading', { name: 'Team app-developers' }).waitFor();
  await page.getByRole('cell', { name: member.username, exact: true }).waitFor();
  await page.getByText('This team has no tokens.').waitFor();
  await page.locator('#add-member option', { hasText: 'Choose a member' }).waitFor({ state: 'attached' });
  await saveScreenshot(page, 'team-page', { fullPage: true });

  await assertFitsPhoneWidth(page, 'the team page');

  // Keyboard alone: a new page puts focus on its title, so Tab goes on into its form; from the top of the
  // document the first stop is the skip link, which leads into <main>.
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Team app-developers');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'team-name');
  assert.equal(await page.evaluate(() => document.querySelector('a[href], button, input, select')?.textContent), 'Skip to content');
  await page.getByRole('link', { name: 'Skip to content' }).focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
  await page.close();
});
