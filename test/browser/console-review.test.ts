/**
 * Issue 38, the last three: the audit trail filtered by who acted and by what changed; the decision panel of a
 * run whose workspace is locked (by whom, and what the lock holds back); the invitation page naming the
 * organization and who invited. At 1280 and 390 px, axe at both; screenshots when TEAMSTAGE_SCREENSHOTS is set.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser } from '../helpers/fixtures.js';
import { waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, stagesOf, startListeningApp, startRun, waitForStageStatus } from '../helpers/task-stage-scenario.js';
import type { TestContext } from '../helpers/test-app.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

let ctx: TestContext;
let service: ScriptedTaskService;
let browser: TestBrowser;
let url: string;

before(async () => {
  await ensureWebBuilt();
  ctx = await startListeningApp('sqlite');
  url = ctx.config.baseUrl.replace(/\/$/, '');
  service = await ScriptedTaskService.start();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await ctx?.close();
});

const WIDTHS = [1280, 390] as const;
const viewport = (width: number) => ({ width, height: width === 390 ? 844 : 800 });

test('the audit trail filters by who acted and by what changed, at both widths', async () => {
  const org = await createOrganization(ctx, 'filtered', await createUser(ctx, 'ada'));
  const bea = await addMember(ctx, org, await createUser(ctx, 'bea'));
  const managers = await createTeam(ctx, org, { name: 'managers', 'organization-access': { 'manage-teams': true, 'manage-membership': true } });
  await addToTeam(org, managers.id, bea.username);
  for (const name of ['made-by-bea', 'also-by-bea']) {
    const made = await bea.api.post(`/organizations/${org.name}/teams`, { data: { type: 'teams', attributes: { name } } });
    assert.equal(made.status, 200, made.text);
  }
  const token = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
  assert.equal(token.status, 201, token.text);

  const secret = token.body.data.attributes.token as string;
  // What the API answers with the same filters: the page must show exactly that many.
  const total = async (query: string) => {
    const answer = await fetch(`${url}/api/v2/organization/audit-trail?${query}`, { headers: { authorization: `Bearer ${secret}` } });
    return ((await answer.json()) as { pagination: { total_count: number } }).pagination.total_count;
  };
  const byBea = await total('filter[actor]=bea');
  const memberships = await total('filter[type]=organization_membership');
  assert.ok(byBea >= 3 && memberships >= 2, `${byBea} ${memberships}`);
  assert.equal(await total('filter[actor]=bea&filter[type]=authentication_token'), 0);

  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  for (const width of WIDTHS) {
    await page.setViewportSize(viewport(width));
    await page.goto(`${url}/app/${org.name}/audit-trail`);
    await page.getByRole('textbox', { name: 'Audit trail token' }).fill(token.body.data.attributes.token);
    await page.getByRole('button', { name: 'Read the trail' }).click();
    const table = page.getByRole('table', { name: `Audit trail of ${org.name}` });
    await table.waitFor();
    const filters = page.getByRole('form', { name: 'Filter the changes' });
    await filters.getByLabel(/^Who/).fill('bea');
    await filters.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByText(`Page 1 of 1 · ${byBea} changes`).waitFor();
    const who = await table.locator('td[data-label="Who"]').allInnerTexts();
    assert.deepEqual(who, new Array(byBea).fill('bea'));
    assert.match(await table.innerText(), /also-by-bea[\s\S]*made-by-bea/, 'newest first');

    // What changed: memberships only, by anyone (the filter by who is cleared).
    await filters.getByLabel(/^Who/).fill('');
    await filters.getByLabel('What changed').selectOption('organization_membership');
    await filters.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByText(`Page 1 of 1 · ${memberships} changes`).waitFor();
    const what = await table.locator('td[data-label="What"]').allInnerTexts();
    assert.ok(what.every((text) => text.startsWith('organization membership')), what.join(' | '));
    await assertAccessible(page, `the filtered audit trail at ${width} px`);
    await saveScreenshot(page, width === 1280 ? 'audit-trail-filters-1280' : 'audit-trail-filters-390');

    // Nothing of that kind by that person: said in the filters' words.
    await filters.getByLabel(/^Who/).fill('bea');
    await filters.getByLabel('What changed').selectOption('authentication_token');
    await filters.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByText('No authentication token change by bea.').waitFor();
    await filters.getByRole('button', { name: 'Show every change' }).click();
    await table.waitFor();
  }
  await assertFitsPhoneWidth(page, 'the audit trail filters');
  await page.close();
});

test("the decision panel says the workspace is locked, by whom, and that queued runs wait for the unlock", async () => {
  const org = await createOrganization(ctx, 'locked-org', await createUser(ctx, 'lena'));
  const gated = await gatedWorkspace(ctx, service, 'fail', { org, enforcement: 'mandatory', stages: ['post_plan'] });
  const reviewers = await createTeam(ctx, org, { 'organization-access': { 'manage-run-tasks': true, 'manage-workspaces': true } });
  const rita = await addMember(ctx, org, await createUser(ctx, 'rita'));
  await addToTeam(org, reviewers.id, rita.username);
  const runId = await startRun(gated, { message: 'rotate the signing keys' });
  const [stage] = await stagesOf(gated.api, runId);
  await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
  await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
  const locked = await gated.api.post(`/workspaces/${gated.workspace.id}/actions/lock`, { reason: 'freeze for the audit' });
  assert.equal(locked.status, 200, locked.text);
  await startRun(gated, { message: 'the next change' });
  const runPath = `${url}/app/${org.name}/workspaces/${gated.workspace.name}/runs/${runId}`;

  const page = await browser.newPage();
  await signIn(page, url, rita.token);
  for (const width of WIDTHS) {
    await page.setViewportSize(viewport(width));
    await page.goto(runPath);
    const banner = page.getByRole('region', { name: 'Your decision is needed' });
    const lock = banner.getByTestId('workspace-lock');
    await lock.getByText(`The workspace ${gated.workspace.name} is locked by lena.`).waitFor();
    assert.match(await lock.innerText(), /no queued run starts; this run already has its turn, so deciding it is not held by the lock\. The run queued behind this one waits for the unlock too\./);
    assert.equal(await banner.getByTestId('queue-behind').count(), 0, 'the queue is said once, in the lock note');
    await assertAccessible(page, `the decision panel of a locked workspace at ${width} px`);
    await saveScreenshot(page, width === 1280 ? 'run-decision-locked-1280' : 'run-decision-locked-390');
  }
  await assertFitsPhoneWidth(page, 'the decision panel of a locked workspace');

  // Unlocked, the note goes and the queue is counted as before.
  const unlocked = await gated.api.post(`/workspaces/${gated.workspace.id}/actions/unlock`);
  assert.equal(unlocked.status, 200, unlocked.text);
  await page.reload();
  const banner = page.getByRole('region', { name: 'Your decision is needed' });
  await banner.getByTestId('queue-behind').waitFor();
  assert.equal(await banner.getByTestId('workspace-lock').count(), 0);
  await page.close();
});

test('the invitation page names the organization and who invited, then joins it', async () => {
  const org = await createOrganization(ctx, 'inviting-org', await createUser(ctx, 'ines'));
  const pablo = await createUser(ctx, 'pablo');
  const invited = await org.owner.api.post(`/organizations/${org.name}/organization-memberships`, {
    data: { type: 'organization-memberships', attributes: { email: pablo.email } },
  });
  assert.equal(invited.status, 201, invited.text);

  const page = await browser.newPage();
  await signIn(page, url, pablo.token);
  for (const width of WIDTHS) {
    await page.setViewportSize(viewport(width));
    await page.goto(`${url}/app/invitations/${invited.body.data.id}`);
    await page.getByRole('heading', { name: `Invitation to ${org.name}` }).waitFor();
    assert.equal(await page.getByTestId('invited-by').innerText(), `ines invited you to ${org.name}. Accept to join it as a member.`);
    await assertAccessible(page, `the invitation page at ${width} px`);
    await saveScreenshot(page, width === 1280 ? 'invitation-1280' : 'invitation-390');
  }
  await assertFitsPhoneWidth(page, 'the invitation page');
  await page.getByRole('button', { name: 'Accept the invitation' }).click();
  await page.waitForURL(`${url}/app/${org.name}/teams`);
  assert.equal((await org.owner.api.get(`/organization-memberships/${invited.body.data.id}`)).body.data.attributes.status, 'active');

  // Someone else's invitation names nothing (the server shows it to the invited person alone).
  const other = await createUser(ctx);
  const stranger = await browser.newPage();
  await signIn(stranger, url, other.token);
  await stranger.goto(`${url}/app/invitations/${invited.body.data.id}`);
  await stranger.getByRole('heading', { name: 'Your invitation' }).waitFor();
  assert.equal(await stranger.getByTestId('invited-by').count(), 0);
  await stranger.close();
  await page.close();
});
