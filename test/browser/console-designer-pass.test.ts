/**
 * Issue 38, item 5 and the designer's pass, at 1280 and 390 px with axe: a run page headed by the run's
 * message with its id second; statuses in words; a team token named by its team wherever an actor shows;
 * run rows with a relative time (exact on hover); one colour per meaning (an info tag is not "passed" green);
 * one organization switcher in the header instead of six links per organization.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAccessible, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { createOrganization, createUser } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';
import { waitForRunHeading } from '../helpers/run-heading.js';

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: TestBrowser;

before(async () => {
  server = await startConsoleServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const WIDTHS = [1280, 390];

test('a run queued by a team token: headed by its message, id second, status in words, the team named, a relative time on its row', async () => {
  const org = await createOrganization(server.ctx, 'designed', await createUser(server.ctx, 'dora'));
  const issued = await org.owner.api.post(`/teams/${org.ownersTeamId}/authentication-tokens`, { data: { attributes: { description: 'pipeline' } } });
  assert.equal(issued.status, 201, issued.text);
  const teamApi = org.owner.api.as(issued.body.data.attributes.token as string);
  const workspace = await createRunnableWorkspace(server.ctx, org.owner.api, org.name, { name: 'billing', 'execution-mode': 'agent' });
  const created = await createRun(teamApi, workspace.id, { message: 'resize the queue\nand its alarms' });
  const runId = created.data.id as string;
  await waitForRunStatus(org.owner.api, runId, 'plan_queued');

  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${server.url}/app/${org.name}/workspaces/billing/runs/${runId}`);
    await waitForRunHeading(page, 'resize the queue', runId);
    // The status in words, not the API's `plan_queued`.
    assert.equal(await page.getByTestId('run-status').locator('.badge').innerText(), 'Plan queued');
    // Who queued it: the team, never `api-team_…`.
    const record = page.getByRole('region', { name: 'Record' });
    await record.getByText('Team owners (team token)').first().waitFor();
    assert.equal((await page.locator('main').innerText()).includes('api-team_'), false, 'a team token shown by its account name');
    await assertAccessible(page, `the run page at ${width} px`);
    await saveScreenshot(page, `run-page-headline-${width}`);

    await page.goto(`${server.url}/app/${org.name}/workspaces/billing`);
    const row = page.getByRole('table', { name: /^Runs of billing/ }).locator('tr', { hasText: runId });
    await row.getByRole('link', { name: /^resize the queue/ }).waitFor();
    const time = row.locator('time');
    assert.match(await time.innerText(), /^(just now|\d+ min ago)$/);
    // Exact on hover: the title is the local date and time, and `datetime` the server's timestamp.
    assert.equal(await time.getAttribute('datetime'), created.data.attributes['created-at']);
    assert.match(String(await time.getAttribute('title')), /\d{4}/);
    assert.equal(await row.locator('.badge').innerText(), 'Plan queued');
    await assertAccessible(page, `the workspace page at ${width} px`);
  }
  await page.close();
});

test('one colour per meaning: passed, needs a decision, failed, in progress and informational differ; an info tag is not "passed" green', async () => {
  const org = await createOrganization(server.ctx, 'colours', await createUser(server.ctx, 'cora'));
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  // A string, not a function: tsx would wrap a named arrow function in a helper the page does not have.
  const backgrounds = (await page.evaluate(`(() => {
    const read = (classes) => {
      const element = document.createElement('span');
      element.className = classes;
      document.body.append(element);
      const colour = getComputedStyle(element).backgroundColor;
      element.remove();
      return colour;
    };
    return {
      passed: read('badge badge-passed'),
      decision: read('badge badge-decision'),
      failed: read('badge badge-failed'),
      progress: read('badge badge-progress'),
      info: read('badge badge-info'),
      infoTag: read('tag tag-info'),
      warningTag: read('tag tag-warning'),
      errorTag: read('tag tag-error'),
    };
  })()`)) as Record<string, string>;
  const meanings = [backgrounds.passed, backgrounds.decision, backgrounds.failed, backgrounds.progress, backgrounds.info];
  assert.equal(new Set(meanings).size, 5, `five meanings, five colours: ${JSON.stringify(backgrounds)}`);
  assert.notEqual(backgrounds.infoTag, backgrounds.passed, 'an info tag looks like "passed"');
  assert.equal(backgrounds.infoTag, backgrounds.info);
  assert.equal(backgrounds.errorTag, backgrounds.failed);
  assert.equal(backgrounds.warningTag, backgrounds.decision);
  await page.close();
});

test('two organizations: one switcher in the header, one row of links, the same section in the other organization', async () => {
  const person = await createUser(server.ctx, 'olga');
  const first = await createOrganization(server.ctx, 'north-division', person);
  const second = await createOrganization(server.ctx, 'south-division', person);
  const page = await browser.newPage();
  await signIn(page, server.url, person.token);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${server.url}/app/${first.name}/teams`);
    await page.getByRole('heading', { name: `Teams of ${first.name}` }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    const switcher = nav.getByLabel('Organization');
    assert.equal(await switcher.inputValue(), first.name);
    assert.deepEqual(await switcher.locator('option').allInnerTexts(), [first.name, second.name]);
    // Six links for the organization the page is in, not six per organization.
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), ['Teams', 'People', 'Projects', 'Workspaces', 'Run tasks', 'Policies', 'Audit trail']);
    const header = (await page.locator('header.top').boundingBox())!;
    // It was 290 px tall at 390 px with two organizations; brand, switcher, links and account now fit in few rows.
    assert.ok(header.height <= (width === 390 ? 160 : 60), `the header is ${header.height} px tall at ${width} px`);
    console.log(`header height at ${width} px with two organizations: ${header.height} px`);
    await assertAccessible(page, `the header with two organizations at ${width} px`);
    await saveScreenshot(page, `organization-switcher-${width}`);

    await switcher.selectOption(second.name);
    await page.getByRole('heading', { name: `Teams of ${second.name}` }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/app/${second.name}/teams`);
    assert.equal(await nav.getByLabel('Organization').inputValue(), second.name);
  }
  await page.close();
});
