/**
 * Issue 36's projects in the console, in a real browser against a real server on SQLite: the organization's
 * projects list (from its navigation), a project page listing its workspaces and team access, reached from a
 * workspace page too; a team page's Project access section gives, changes and removes the team's access. axe on
 * each page, at 1280 and 390 px wide (nothing scrolls sideways at 390).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, launchBrowser, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { createOrganization, createTeam, type TestOrganization } from '../helpers/fixtures.js';

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: TestBrowser;
let org: TestOrganization;

before(async () => {
  server = await startConsoleServer();
  browser = await launchBrowser();
  org = await createOrganization(server.ctx);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** axe at 1280 px, then at 390 px with nothing wider than the screen, then back. */
async function assertAtBothWidths(page: Page, where: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await assertAccessible(page, where);
  await page.setViewportSize({ width: 390, height: 844 });
  const wide = await page.evaluate(() =>
    document.documentElement.scrollWidth > window.innerWidth
      ? [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5).slice(0, 5).map((element) => element.tagName.toLowerCase())
      : [],
  );
  assert.deepEqual(wide, [], `${where} scrolls sideways at 390 px wide`);
  await assertAccessible(page, `${where} at 390 px`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('projects list, project page with its workspaces and team access, reached from the navigation and a workspace page', async () => {
  const api = org.owner.api;
  const project = await api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'network', description: 'The network team' } } });
  assert.equal(project.status, 201, project.text);
  const projectId = project.body.data.id as string;
  const workspace = await api.post(`/organizations/${org.name}/workspaces`, {
    data: { type: 'workspaces', attributes: { name: 'core-routing' }, relationships: { project: { data: { type: 'projects', id: projectId } } } },
  });
  assert.equal(workspace.status, 201, workspace.text);
  const team = await createTeam(server.ctx, org, { name: 'netops', visibility: 'organization' });
  assert.equal((await api.post('/team-projects', { data: { type: 'team-projects', attributes: { access: 'write' }, relationships: { team: { data: { type: 'teams', id: team.id } }, project: { data: { type: 'projects', id: projectId } } } } })).status, 201);

  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/workspaces`);
  await page.getByRole('link', { name: 'Projects' }).first().click();
  await page.getByRole('heading', { name: `Projects of ${org.name}` }).waitFor();
  assert.deepEqual(await page.locator('table.list tbody a').allInnerTexts(), ['Default Project', 'network']);
  await assertAtBothWidths(page, 'the projects list');

  await page.getByRole('link', { name: 'network' }).click();
  await page.getByRole('heading', { name: 'Project network' }).waitFor();
  await page.getByRole('link', { name: 'core-routing' }).waitFor();
  await page.getByRole('link', { name: 'netops' }).waitFor();
  await page.getByText('queue and apply runs in its workspaces').waitFor();
  await assertAtBothWidths(page, 'the project page');

  await page.getByRole('link', { name: 'core-routing' }).click();
  await page.getByRole('heading', { name: 'Workspace core-routing' }).waitFor();
  await page.getByRole('link', { name: 'View the project' }).click();
  await page.getByRole('heading', { name: 'Project network' }).waitFor();
  await page.close();
});

test("a team page's Project access section gives, changes and removes the team's access", async () => {
  const api = org.owner.api;
  const project = await api.post(`/organizations/${org.name}/projects`, { data: { type: 'projects', attributes: { name: 'payments' } } });
  assert.equal(project.status, 201, project.text);
  const team = await createTeam(server.ctx, org, { name: 'payments-team', visibility: 'organization' });
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/teams/${team.id}`);
  await page.getByRole('heading', { name: 'Project access' }).waitFor();
  await page.getByText('This team has no access to any project you can see.').waitFor();
  await page.locator('#team-project-choice option', { hasText: 'payments' }).waitFor({ state: 'attached' });
  await assertAtBothWidths(page, 'the team page with no project access');

  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'payments' });
  await page.getByLabel('Access', { exact: true }).selectOption('maintain');
  await page.getByRole('button', { name: 'Give project access' }).click();
  await page.getByText('Project access given.').waitFor();
  await page.getByRole('link', { name: 'payments' }).waitFor();
  const given = await api.get(`/team-projects?filter[team][id]=${team.id}`);
  assert.deepEqual(given.body.data.map((item: any) => [item.relationships.project.data.id, item.attributes.access]), [[project.body.data.id, 'maintain']]);
  await assertAtBothWidths(page, 'the team page with project access');

  await page.getByLabel('Access to payments').selectOption('admin');
  await page.getByText('Project access changed.').waitFor();
  assert.equal((await api.get(`/team-projects?filter[team][id]=${team.id}`)).body.data[0].attributes.access, 'admin');
  await page.getByRole('button', { name: 'Remove access to payments' }).click();
  await page.getByText('Project access removed.').waitFor();
  await page.getByText('This team has no access to any project you can see.').waitFor();
  assert.deepEqual((await api.get(`/team-projects?filter[team][id]=${team.id}`)).body.data, []);
  await page.close();
});
