/**
 * Issue 38, item 2: the decision panel of a run whose workspace needs two approvers. Alice overrides with a
 * comment in the browser; her page then names her among the approvers with her comment, says why she is not
 * offered Override again (she already counts: the override rule's answer), and still lets her discard. Bob's
 * page shows Alice's approval and comment, offers him Override, lists the failed check, counts the run queued
 * behind, and asks before discarding, quoting his comment; keeping it changes nothing. At 1280 and 390 px,
 * axe at both.
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

before(async () => {
  await ensureWebBuilt();
  ctx = await startListeningApp('sqlite');
  service = await ScriptedTaskService.start();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await ctx?.close();
});

test('a two-approver run: the first approver is named with her comment, is not offered a second Override and reads why; the second is; Discard asks first', async () => {
  const url = ctx.config.baseUrl.replace(/\/$/, '');
  const org = await createOrganization(ctx, 'four-eyes', await createUser(ctx, 'olga'));
  const gated = await gatedWorkspace(ctx, service, 'fail', { org, enforcement: 'mandatory', stages: ['post_plan'] });
  const patched = await gated.api.patch(`/workspaces/${gated.workspace.id}`, { data: { type: 'workspaces', attributes: { 'required-approvals': 2 } } });
  assert.equal(patched.status, 200, patched.text);
  // They may override run tasks, and queue, apply and discard runs (manage-workspaces).
  const team = await createTeam(ctx, org, { 'organization-access': { 'manage-run-tasks': true, 'manage-workspaces': true } });
  const alice = await addMember(ctx, org, await createUser(ctx, 'alice'));
  const bob = await addMember(ctx, org, await createUser(ctx, 'bob'));
  await addToTeam(org, team.id, alice.username);
  await addToTeam(org, team.id, bob.username);

  const runId = await startRun(gated, { message: 'open the audit bucket to the reporting role' });
  const [stage] = await stagesOf(gated.api, runId);
  await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
  await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
  // A second run waits behind the first in the workspace's queue.
  await startRun(gated, { message: 'the next change' });
  const runPath = `${url}/app/${org.name}/workspaces/${gated.workspace.name}/runs/${runId}`;

  // Alice approves in the browser, with a comment.
  const alicePage = await browser.newPage();
  await signIn(alicePage, url, alice.token);
  await alicePage.goto(runPath);
  const aliceBanner = alicePage.getByRole('region', { name: 'Your decision is needed' });
  await aliceBanner.getByText('0 of 2 approvals').waitFor();
  await aliceBanner.getByLabel('Comment (optional, recorded with your decision)').fill('first look: the bucket stays private');
  await aliceBanner.getByRole('button', { name: 'Override' }).click();
  await aliceBanner.getByText('1 of 2 approvals').waitFor();
  const approvedBy = aliceBanner.getByRole('list', { name: 'Approved by' });
  await approvedBy.getByText('alice', { exact: true }).waitFor();
  assert.match(await approvedBy.innerText(), /first look: the bucket stays private/);
  // She already counts: no second Override, and the panel says why; she may still discard.
  await aliceBanner.getByTestId('already-approved').getByText(/You have approved this stage already, and one person counts once: it needs 1 more person/).waitFor();
  assert.equal(await aliceBanner.getByRole('button', { name: 'Override' }).count(), 0);
  assert.equal(await aliceBanner.getByRole('button', { name: 'Discard' }).count(), 1);
  await assertAccessible(alicePage, 'the decision panel of the first approver');

  // Bob reads who approved and what she wrote, and may override.
  const bobPage = await browser.newPage();
  await signIn(bobPage, url, bob.token);
  for (const width of [1280, 390]) {
    await bobPage.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await bobPage.goto(runPath);
    const banner = bobPage.getByRole('region', { name: 'Your decision is needed' });
    await banner.getByText('1 of 2 approvals').waitFor();
    await banner.getByRole('list', { name: 'Approved by' }).getByText('alice', { exact: true }).waitFor();
    assert.match(await banner.getByRole('list', { name: 'Approved by' }).innerText(), /first look: the bucket stays private/);
    await banner.getByRole('button', { name: 'Override' }).waitFor();
    assert.equal(await banner.getByTestId('already-approved').count(), 0);
    const checks = await banner.getByRole('list', { name: 'Checks that did not pass' }).getByRole('listitem').allInnerTexts();
    assert.equal(checks.length, 1);
    assert.match(checks[0]!, /^Mandatory\s+Post-plan tasks: task .+ \(mandatory\) failed/);
    await banner.getByTestId('queue-behind').getByText("1 run waits behind this one in the workspace's queue.").waitFor();
    await assertAccessible(bobPage, `the decision panel of the second approver at ${width} px`);
    await saveScreenshot(bobPage, width === 1280 ? 'run-decision-panel' : 'run-decision-panel-phone');
  }
  await assertFitsPhoneWidth(bobPage, 'the decision panel');

  // Discard asks first, quoting the comment; keeping the run changes nothing.
  const banner = bobPage.getByRole('region', { name: 'Your decision is needed' });
  await banner.getByLabel('Comment (optional, recorded with your decision)').fill('not this week');
  await banner.getByRole('button', { name: 'Discard' }).click();
  const question = banner.getByRole('group', { name: 'Discard this run with the comment “not this week”?' });
  await question.waitFor();
  assert.equal(await bobPage.evaluate(() => document.activeElement?.textContent), 'Discard now');
  await question.getByRole('button', { name: 'Keep' }).click();
  await banner.getByRole('button', { name: 'Discard' }).waitFor();
  assert.equal((await gated.api.get(`/runs/${runId}`)).body.data.attributes.status, 'post_plan_awaiting_decision');
  await alicePage.close();
  await bobPage.close();
});
