/**
 * Issue 30's acceptance: a new install's whole path in Chromium, every step in the console and by keyboard
 * (fields typed into, buttons and boxes worked with Enter and Space), with no API call outside it but the
 * pipeline's own: the site token adds the first users; the first user creates the organization, a team
 * with organization access, invites a reviewer into it (who accepts in their own tab), creates a workspace,
 * registers a run task and attaches it as mandatory after the plan; the pipeline queues a run, the task
 * fails it; the reviewer opens the link the task service was sent, reads why and overrides with a comment;
 * the owner applies. axe on every page at 1280×800 and 390×844; screenshots of both widths for the README
 * when scripts/console-screenshots.mjs runs it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ApiClient } from '../helpers/api-client.js';
import { assertAccessible, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { createOrganization, createTeam, createUser } from '../helpers/fixtures.js';
import { MockTaskService, type RecordedTaskRequest } from '../helpers/mock-task-service.js';
import { createRun, memberWithAccess, uploadConfiguration, waitForRunStatus } from '../helpers/run-fixtures.js';
import { startListeningApp } from '../helpers/task-stage-scenario.js';
import { SIMULATED_PLAN_CHANGES, type TestContext } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait-until.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

let ctx: TestContext;
let url: string;
let browser: TestBrowser;
let scanner: MockTaskService;
const consoleRequests: string[] = [];

/** A security scanner as a run task service: it fails every run's plan with a finding or three. */
async function failRun(payload: Record<string, any>): Promise<void> {
  const outcomes = [
    ['SEC-101', 'S3 bucket `payments-exports` is public', 'error', 'High', '## Why\n\nThe bucket policy grants `s3:GetObject` to `*`.\n\n**Fix:** set `block_public_acls = true`.'],
    ['SEC-205', 'IAM role allows `iam:PassRole` on `*`', 'warning', 'Medium', 'Limit the role to the functions it deploys.'],
    ['SEC-310', 'Access logging is off', 'info', 'Low', 'Turn on server access logs.'],
  ].map(([id, description, level, label, body]) => ({
    type: 'task-result-outcomes',
    attributes: { 'outcome-id': id, description, body, tags: { Severity: [{ label, level }] } },
  }));
  await fetch(payload.task_result_callback_url, {
    method: 'PATCH',
    headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${payload.access_token}` },
    body: JSON.stringify({
      data: { type: 'task-results', attributes: { status: 'failed', message: '1 high, 1 medium and 1 low finding' }, relationships: { outcomes: { data: outcomes } } },
    }),
  });
}

before(async () => {
  await ensureWebBuilt();
  // Its runs go on to their apply after the decision: the built-in executor simulates a plan with changes.
  ctx = await startListeningApp('sqlite', SIMULATED_PLAN_CHANGES);
  url = ctx.config.baseUrl.replace(/\/$/, '');
  scanner = await MockTaskService.start({
    respond: (request: RecordedTaskRequest) => {
      if (request.json && request.json.stage !== 'test') setTimeout(() => void failRun(request.json!), 50);
      return { status: 200 };
    },
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await scanner?.close();
  await ctx?.close();
});

async function newTab(): Promise<Page> {
  const page = await browser.newPage();
  page.on('request', (request) => consoleRequests.push(`${request.method()} ${request.url()}`));
  return page;
}

/** Types into the field a label names, by keyboard. */
async function type(page: Page, label: string | RegExp, text: string): Promise<void> {
  const field = page.getByLabel(label);
  await field.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
}

/** Works a button or link by keyboard: focus, then Enter. */
async function press(page: Page, role: 'button' | 'link', name: string | RegExp, scope: Page | ReturnType<Page['locator']> = page): Promise<void> {
  const control = scope.getByRole(role, { name, exact: typeof name === 'string' });
  await control.focus();
  // A page's title takes focus once the page has rendered (PageTitle): on a busy machine that can come after
  // ours, and Enter would then press nothing. Focus again until the control holds it.
  for (let attempt = 0; attempt < 5 && !(await control.evaluate((element) => element === document.activeElement)); attempt += 1) {
    await page.waitForTimeout(100);
    await control.focus();
  }
  assert.equal(await control.evaluate((element) => element === document.activeElement), true, `${String(name)} holds the focus`);
  await page.keyboard.press('Enter');
}

/** Ticks a checkbox or radio by keyboard (Space). */
async function tick(page: Page, role: 'checkbox' | 'radio', name: string | RegExp): Promise<void> {
  const box = page.getByRole(role, { name });
  await box.focus();
  if (!(await box.isChecked())) await page.keyboard.press('Space');
  assert.equal(await box.isChecked(), true, `${name} is ticked`);
}

/** The screenshots the README shows, by page and width. */
const SHOWN = new Set(['first-run-1280', 'people-1280', 'workspace-390', 'decision-1280', 'decision-390']);

/** axe at both widths (and no sideways scrolling at the narrow one); the README's screenshots when asked. */
async function checkPage(page: Page, name: string): Promise<void> {
  await assertAccessible(page, `${name} at 1280 px`);
  if (SHOWN.has(`${name}-1280`)) await saveScreenshot(page, `walk-${name}-1280`);
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false, `${name} scrolls sideways at 390 px`);
    await assertAccessible(page, `${name} at 390 px`);
    if (SHOWN.has(`${name}-390`)) await saveScreenshot(page, `walk-${name}-390`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

/** The secret a "shown once" box holds, as a person would copy it. */
async function shownOnce(page: Page, label: string): Promise<string> {
  const box = page.getByLabel(label, { exact: true });
  await box.waitFor();
  return (await box.innerText()).trim();
}

test("a new install's whole path in the console: site token → users → organization → team → invitation → workspace → run task → a failed run → the reviewer's override → apply", async () => {
  // The site admin opens the server's address and signs in with the site token.
  const admin = await newTab();
  await admin.goto(`${url}/`);
  await type(admin, 'API token', ctx.siteToken);
  await admin.keyboard.press('Enter');
  await admin.getByRole('heading', { name: 'Your account' }).waitFor();
  await admin.getByText('Site administrator (the site token)').waitFor();
  await admin.getByText('No organization yet. Add a user above').waitFor();
  await checkPage(admin, 'first-run');

  // Two users, each with a token shown once: the reviewer's is handed over, the admin continues as the first.
  await type(admin, 'User name', 'bob');
  await type(admin, 'Email', 'bob@example.test');
  await press(admin, 'button', 'Add the user and make their token');
  const bobToken = await shownOnce(admin, 'Token of bob');
  await press(admin, 'button', 'Done, hide it');
  await type(admin, 'User name', 'alice');
  await type(admin, 'Email', 'alice@example.test');
  await press(admin, 'button', 'Add the user and make their token');
  await shownOnce(admin, 'Token of alice');
  await checkPage(admin, 'first-user-token');
  await press(admin, 'button', 'Sign in as alice');
  const alice = admin;
  await alice.getByText('Signed in as alice').waitFor();

  // Alice creates the organization and becomes its owner.
  await alice.getByRole('heading', { name: 'Create your first organization' }).waitFor();
  await type(alice, 'Organization name', 'acme');
  await type(alice, 'Contact email', 'platform@example.test');
  await press(alice, 'button', 'Create organization');
  await alice.getByRole('heading', { name: 'Teams of acme' }).waitFor();
  assert.equal(alice.url(), `${url}/app/acme/teams`);

  // A team of reviewers who may manage run tasks (and so override them).
  await type(alice, 'Team name', 'reviewers');
  await tick(alice, 'radio', /Visible to every member/);
  await press(alice, 'button', 'Create team');
  await alice.getByRole('heading', { name: 'Team reviewers' }).waitFor();
  await tick(alice, 'checkbox', 'Manage run tasks');
  await press(alice, 'button', 'Save organization access');
  await alice.getByText('Organization access saved.').waitFor();

  // Bob is invited into the team; he accepts in his own tab, signed in with his own token.
  await press(alice, 'link', 'People', alice.getByRole('navigation', { name: 'Main' }));
  await alice.getByRole('heading', { name: 'People of acme' }).waitFor();
  await type(alice, 'Email', 'bob@example.test');
  await tick(alice, 'checkbox', 'reviewers');
  await press(alice, 'button', 'Invite');
  await alice.getByText('bob@example.test is invited.').waitFor();
  const invitation = await alice.getByRole('status').getByRole('link').getAttribute('href');
  assert.match(invitation ?? '', /^\/app\/invitations\/ou-/);
  await checkPage(alice, 'people');
  const bob = await newTab();
  await bob.goto(`${url}${invitation}`);
  await type(bob, 'API token', bobToken);
  await bob.keyboard.press('Enter');
  // The invitation names its organization and who invited (issue 38).
  await bob.getByRole('heading', { name: 'Invitation to acme' }).waitFor();
  await bob.getByText('alice invited you to acme.').waitFor();
  await checkPage(bob, 'invitation');
  await press(bob, 'button', 'Accept the invitation');
  await bob.getByRole('heading', { name: 'Teams of acme' }).waitFor();
  await bob.getByRole('link', { name: 'reviewers' }).waitFor();

  // The team now has its member; the pipeline gets a token (the owners team's, which may queue runs).
  await alice.goto(`${url}/app/acme/teams`);
  await press(alice, 'link', 'reviewers');
  await alice.getByRole('cell', { name: 'bob', exact: true }).waitFor();
  await checkPage(alice, 'team');
  await press(alice, 'link', 'Teams of acme');
  await press(alice, 'link', 'owners');
  await type(alice, 'New token description', 'deploy pipeline');
  await press(alice, 'button', 'Create a team token');
  const pipelineToken = await shownOnce(alice, 'New token');

  // A workspace the pipeline plans and applies in, confirmed by a person.
  await press(alice, 'link', 'Workspaces', alice.getByRole('navigation', { name: 'Main' }));
  await alice.getByRole('heading', { name: 'Workspaces of acme' }).waitFor();
  await type(alice, 'Workspace name', 'payments');
  await type(alice, 'Description (optional)', 'The payments service');
  await tick(alice, 'radio', /^Remote:/);
  await press(alice, 'button', 'Create workspace');
  await alice.getByRole('heading', { name: 'Workspace payments' }).waitFor();
  assert.equal(alice.url(), `${url}/app/acme/workspaces/payments`);

  // The scanner, registered (the server checks it answers) and attached as mandatory after the plan.
  await press(alice, 'link', 'Run tasks', alice.getByRole('navigation', { name: 'Main' }));
  await alice.getByRole('heading', { name: 'Run tasks of acme' }).waitFor();
  await type(alice, 'Name', 'scanner');
  await type(alice, 'Service URL', scanner.url);
  await type(alice, 'Description (optional)', 'Security findings in the plan');
  await press(alice, 'button', 'Register run task');
  await alice.getByRole('heading', { name: 'scanner' }).waitFor();
  await checkPage(alice, 'run-tasks');
  await press(alice, 'link', 'Workspaces', alice.getByRole('navigation', { name: 'Main' }));
  await press(alice, 'link', 'payments');
  await alice.getByRole('heading', { name: 'Workspace payments' }).waitFor();
  const choose = alice.getByLabel('Run task', { exact: true });
  await choose.focus();
  await choose.selectOption({ label: 'scanner' });
  await tick(alice, 'checkbox', /^Post-plan/);
  await tick(alice, 'radio', /^Mandatory/);
  await press(alice, 'button', 'Attach');
  await alice.getByRole('table', { name: 'Run tasks attached to payments' }).getByText('Mandatory: a failure waits for an override').waitFor();
  await checkPage(alice, 'workspace');

  // The pipeline (its own API calls, with its token): upload the configuration and queue a run.
  const pipeline = new ApiClient(ctx.app, pipelineToken);
  const workspace = await pipeline.get('/organizations/acme/workspaces/payments');
  assert.equal(workspace.status, 200, workspace.text);
  await uploadConfiguration(ctx, pipeline, workspace.body.data.id);
  const runId = (await createRun(pipeline, workspace.body.data.id, { message: 'Open the exports bucket to the reporting job' })).data.id as string;
  await waitForRunStatus(pipeline, runId, 'post_plan_awaiting_decision');

  // Bob follows the link the scanner was sent: the decision is the first thing he sees.
  await waitUntil(() => scanner.requests.some((request) => request.json?.run_id === runId), 5000, 'the scanner was never asked');
  const runAppUrl = scanner.requests.find((request) => request.json?.run_id === runId)!.json!.run_app_url as string;
  assert.equal(runAppUrl, `${url}/app/acme/workspaces/payments/runs/${runId}`);
  await bob.goto(runAppUrl);
  const banner = bob.getByRole('region', { name: 'Your decision is needed' });
  await banner.getByText('the mandatory task scanner failed').waitFor();
  await bob.getByRole('heading', { name: /^3 outcomes from scanner/ }).waitFor();
  await checkPage(bob, 'decision');
  await bob.getByText('SEC-101', { exact: true }).click();
  await bob.getByRole('heading', { name: 'Why' }).waitFor();
  await type(bob, 'Comment (optional, recorded with your decision)', 'Accepted: the bucket only holds public price lists; SEC-101 fixed in PAY-412');
  await press(bob, 'button', 'Override', banner);
  await bob.locator('#step-post_plan .badge', { hasText: 'passed' }).waitFor();
  // Bob may override run tasks but not apply: the banner now waits for someone who may.
  await bob.getByRole('region', { name: 'Waiting for a decision' }).getByText('The plan is ready to apply').waitFor();

  // Alice applies.
  await alice.goto(runAppUrl);
  await alice.getByRole('region', { name: 'Your decision is needed' }).getByText('The plan is ready to apply').waitFor();
  await type(alice, 'Comment (optional, recorded with your decision)', 'Applying after the review');
  await press(alice, 'button', 'Apply');
  // Apply asks once more, quoting the comment that goes with it.
  await alice.getByRole('group', { name: 'Apply this run with the comment “Applying after the review”?' }).waitFor();
  await press(alice, 'button', 'Apply now');
  await alice.getByTestId('run-status').getByText('Applied', { exact: true }).waitFor({ timeout: 20_000 });
  await checkPage(alice, 'applied');
  assert.equal((await waitForRunStatus(pipeline, runId, 'applied')).attributes.status, 'applied');

  // On the record: bob's override and his comment.
  const overrides = await ctx.handle.db.selectFrom('task_stage_overrides').selectAll().execute();
  assert.deepEqual(
    overrides.map((override) => override.comment),
    ['Accepted: the bucket only holds public price lists; SEC-101 fixed in PAY-412'],
  );
  // Every request the console made went to the console's own pages and assets or to /api/v2 of this server.
  const elsewhere = consoleRequests.filter((request) => !request.split(' ')[1]!.startsWith(`${url}/`));
  assert.deepEqual(elsewhere, []);
  await admin.close();
  await bob.close();
});

test('changing and removing, each confirmed by name; none of it offered to a member without the rights', async () => {
  const org = await createOrganization(ctx, 'edits', await createUser(ctx, 'olivia'));
  const team = await createTeam(ctx, org, { name: 'short-lived', visibility: 'organization' });
  const page = await newTab();
  await signIn(page, url, org.owner.token);

  // A workspace made and changed: execution mode and auto-apply.
  await page.goto(`${url}/app/${org.name}/workspaces`);
  await type(page, 'Workspace name', 'billing');
  await press(page, 'button', 'Create workspace');
  await page.getByRole('heading', { name: 'Workspace billing' }).waitFor();
  await page.getByText('Change settings').click();
  await tick(page, 'radio', /^Agent:/);
  await tick(page, 'checkbox', /^Apply automatically/);
  await press(page, 'button', 'Save workspace');
  await page.getByText('Workspace saved.').waitFor();
  const saved = await org.owner.api.get(`/organizations/${org.name}/workspaces/billing`);
  assert.deepEqual([saved.body.data.attributes['execution-mode'], saved.body.data.attributes['auto-apply']], ['agent', true]);

  // A run task registered, attached, edited; deleting it while attached is refused with the server's words.
  await page.goto(`${url}/app/${org.name}/tasks`);
  await type(page, 'Name', 'linter');
  await type(page, 'Service URL', scanner.url);
  await press(page, 'button', 'Register run task');
  await page.getByRole('heading', { name: 'linter' }).waitFor();
  await page.goto(`${url}/app/${org.name}/workspaces/billing`);
  await page.getByLabel('Run task', { exact: true }).selectOption({ label: 'linter' });
  await tick(page, 'radio', /^Advisory/);
  await press(page, 'button', 'Attach');
  await page.getByRole('cell', { name: 'Advisory: a failure is only reported' }).waitFor();
  await page.goto(`${url}/app/${org.name}/tasks`);
  await page.getByText('Edit linter').click();
  await page.locator('details.edit[open]').getByLabel('Description (optional)').fill('Style findings');
  await press(page, 'button', 'Save run task');
  await page.getByText('Style findings').waitFor();
  await press(page, 'button', 'Delete linter');
  await press(page, 'button', 'Delete linter now');
  await page.getByRole('alert').waitFor();
  assert.equal((await org.owner.api.get(`/organizations/${org.name}/tasks`)).body.data.length, 1, 'still there');

  // Detached (confirmed), then deleted (confirmed).
  await page.goto(`${url}/app/${org.name}/workspaces/billing`);
  await press(page, 'button', 'Detach linter');
  await press(page, 'button', 'Detach linter now');
  await page.getByText('linter detached.').waitFor();
  await page.goto(`${url}/app/${org.name}/tasks`);
  await press(page, 'button', 'Delete linter');
  await press(page, 'button', 'Delete linter now');
  await page.getByText('This organization has no run task.').waitFor();

  // A team deleted after a confirmation that names it.
  await page.goto(`${url}/app/${org.name}/teams/${team.id}`);
  await press(page, 'button', 'Delete team');
  await page.getByRole('group', { name: 'Delete the team short-lived?' }).waitFor();
  await assertAccessible(page, 'a team deletion awaiting confirmation');
  await press(page, 'button', 'Delete short-lived now');
  await page.getByRole('heading', { name: `Teams of ${org.name}` }).waitFor();
  assert.equal((await org.owner.api.get(`/teams/${team.id}`)).status, 404);

  // A member who may only read workspaces: every page, none of the controls.
  const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
  const visible = await createTeam(ctx, org, { name: 'readers-team', visibility: 'organization' });
  const readerPage = await newTab();
  await signIn(readerPage, url, reader.token);
  const offered = async (names: string[]) => {
    for (const name of names) assert.equal(await readerPage.getByRole('button', { name, exact: true }).count(), 0, `${name} is not offered`);
  };
  await readerPage.goto(`${url}/app/${org.name}/workspaces`);
  await readerPage.getByRole('link', { name: 'billing' }).waitFor();
  await offered(['Create workspace']);
  await readerPage.goto(`${url}/app/${org.name}/workspaces/billing`);
  await readerPage.getByRole('heading', { name: 'Workspace billing' }).waitFor();
  assert.equal(await readerPage.getByText('Change settings').count(), 0);
  await offered(['Attach']);
  await readerPage.goto(`${url}/app/${org.name}/tasks`);
  await readerPage.getByRole('heading', { name: `Run tasks of ${org.name}` }).waitFor();
  await offered(['Register run task']);
  await readerPage.goto(`${url}/app/${org.name}/people`);
  await readerPage.getByRole('heading', { name: `People of ${org.name}` }).waitFor();
  await offered(['Invite', 'Remove']);
  await readerPage.goto(`${url}/app/${org.name}/teams/${visible.id}`);
  await readerPage.getByRole('heading', { name: 'Team readers-team' }).waitFor();
  await offered(['Delete team']);
  await assertAccessible(readerPage, 'a team page for a reader');
  await page.close();
  await readerPage.close();
});
