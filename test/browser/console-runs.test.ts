/**
 * Issue 17's run acceptance in a real browser against a real server on SQLite, with a real run task
 * service on 127.0.0.1 (test/helpers/task-stage-scenario.ts) that fails its check with two outcomes:
 * open the run awaiting an override, read the task's message (line breaks kept) and outcomes (with their
 * severity tags); a member who may read runs but not override sees no Override button; the owner
 * overrides with a comment and watches the stage go `running` then `passed` without reloading, and the
 * run move on to be applied. Also the workspace list and page (attached tasks, runs) and the run tasks
 * page. axe on every page; a screenshot of the run page awaiting override for the README (when scripts/console-screenshots.mjs runs it).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { runHeading, waitForRunHeading } from '../helpers/run-heading.js';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { createOrganization, createUser, type TestOrganization } from '../helpers/fixtures.js';
import { memberWithAccess, waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, stagesOf, startListeningApp, startRun, waitForStageStatus, type GatedWorkspace } from '../helpers/task-stage-scenario.js';
import type { TestContext } from '../helpers/test-app.js';
import { ensureWebBuilt } from '../helpers/web-build.js';
import { waitUntil } from '../helpers/wait-until.js';

let ctx: TestContext;
let url: string;
let service: ScriptedTaskService;
let browser: TestBrowser;
let org: TestOrganization;

before(async () => {
  await ensureWebBuilt();
  // Listening at the port its base URL names, so the task service's callbacks reach it.
  ctx = await startListeningApp('sqlite');
  url = ctx.config.baseUrl.replace(/\/$/, '');
  service = await ScriptedTaskService.start();
  browser = await launchBrowser();
  org = await createOrganization(ctx, 'acme-runs', await createUser(ctx, 'alice'));
});

after(async () => {
  await browser?.close();
  await service?.close();
  await ctx?.close();
});

/** A run whose mandatory post-plan task failed: the stage awaits an override. */
async function runAwaitingOverride(): Promise<{ gated: GatedWorkspace; runId: string; stageId: string }> {
  const gated = await gatedWorkspace(ctx, service, 'fail', { org, enforcement: 'mandatory', stages: ['post_plan'] });
  const runId = await startRun(gated, { message: 'add the audit bucket' });
  const [stage] = await stagesOf(gated.api, runId);
  await waitForStageStatus(gated.api, stage.id, 'awaiting_override');
  await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
  return { gated, runId, stageId: stage.id };
}

/** The run's page at HCP Terraform's path, as `run_app_url` names it. */
function runPath(gated: GatedWorkspace, runId: string): string {
  return `${url}/app/${gated.org.name}/workspaces/${gated.workspace.name}/runs/${runId}`;
}

function postPlanStep(page: Page) {
  return page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^Post-plan tasks/ }) });
}

/** Records every status the post-plan step's heading shows, so a short-lived `running` is not missed. */
async function recordStepStatuses(page: Page): Promise<void> {
  // A string, not a function: tsx would wrap a named arrow function in a helper the page does not have.
  await page.evaluate(`(() => {
    const seen = (window.stepStatuses = []);
    function read() {
      const text = document.querySelector('#step-post_plan .badge')?.textContent ?? '';
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    }
    read();
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}

test('a run whose mandatory task failed: message and outcomes, no override for a reader, override with a comment, the run moves on', async () => {
  const { gated, runId, stageId } = await runAwaitingOverride();

  // The link the task service was sent opens the run itself, through the sign-in.
  const runAppUrl = service.deliveries().find((request) => request.json?.run_id === runId)?.json?.run_app_url as string;
  assert.equal(runAppUrl, runPath(gated, runId));
  const page = await browser.newPage();
  await page.goto(runAppUrl);
  await page.getByLabel('API token').fill(org.owner.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await waitForRunHeading(page, 'add the audit bucket', runId);
  await page.getByRole('button', { name: 'Override' }).waitFor();
  assert.equal(page.url(), runAppUrl);

  // The timeline in order, with the absent stages said so.
  const headings = await page.locator('ol.timeline > li h3').allInnerTexts();
  assert.deepEqual(await page.locator('ol.timeline > li h3 .step-label').allInnerTexts(), [
    'Pre-plan tasks', 'Plan', 'Post-plan tasks', 'Pre-apply tasks', 'Apply', 'Post-apply tasks',
  ]);
  assert.match(headings[2]!, /Needs a decision$/);
  assert.match(headings[0]!, /no run task at this stage/);
  assert.match(await page.getByTestId('run-status').innerText(), /^Needs a decision on the plan/);

  // The task's message with its line break kept, its link, and the outcomes with their severity tags.
  const step = postPlanStep(page);
  const message = step.locator('.message');
  assert.equal(await message.innerText(), 'two findings\nsee outcomes');
  assert.equal(await step.getByRole('link', { name: /^Details from / }).getAttribute('href'), 'https://external.service.example/r/1');
  await step.getByText('PRTNR-CC-TF-127', { exact: true }).waitFor();
  await step.getByText('S3 bucket will not enforce MFA login on delete requests').waitFor();
  await step.getByText('PRTNR-CC-TF-128', { exact: true }).waitFor();
  // Grouped by severity, worst first, with the true count; each outcome opens on its Markdown body, rendered.
  await step.getByRole('heading', { name: /^2 outcomes from / }).waitFor();
  assert.deepEqual(await step.locator('.outcome-group h6 .tag').allInnerTexts(), ['Severity: High', 'No severity']);
  await step.getByText('S3 bucket will not enforce MFA login on delete requests').click();
  await step.getByRole('heading', { name: 'Resolution' }).waitFor();
  assert.equal(await step.locator('.outcome-body h1', { hasText: 'Resolution' }).count(), 1);
  const tags = await step.getByRole('list', { name: 'Tags' }).getByRole('listitem').allInnerTexts();
  assert.deepEqual(tags, ['Status: Denied', 'Severity: High', 'Severity: Recoverable']);
  assert.equal(await step.getByRole('list', { name: 'Tags' }).locator('.tag-error', { hasText: 'Severity: High' }).count(), 1);
  // Started, ended and a duration for the finished plan; the stage is still open.
  const plan = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^Plan/ }) });
  assert.match(await plan.locator('dl').innerText(), /Duration\s+\d+(\.\d)? s/);
  assert.match(await plan.innerText(), /\+0 to add/);
  assert.match(await step.locator('dl').innerText(), /not yet/);
  // Waiting for a person, the run offers Discard but not Apply.
  assert.equal(await page.getByRole('button', { name: 'Discard' }).count(), 1);
  assert.equal(await page.getByRole('button', { name: 'Apply' }).count(), 0);
  await assertAccessible(page, 'the run page awaiting an override');
  await saveScreenshot(page, 'run-awaiting-override', { fullPage: true });

  // A member who reads runs but may not override: the results, and no Override button (nor Discard).
  const reader = await memberWithAccess(ctx, org, { 'read-workspaces': true });
  const readerPage = await browser.newPage();
  await signIn(readerPage, url, reader.token);
  await readerPage.goto(runPath(gated, runId));
  await waitForRunHeading(readerPage, 'add the audit bucket', runId);
  await postPlanStep(readerPage).getByText('PRTNR-CC-TF-127', { exact: true }).waitFor();
  await readerPage.getByText('the run waits until someone who manages run tasks overrides this stage').waitFor();
  assert.equal(await readerPage.getByRole('button', { name: 'Override' }).count(), 0);
  assert.equal(await readerPage.getByRole('button', { name: 'Discard' }).count(), 0);
  await assertAccessible(readerPage, 'the run page for a reader');

  // The owner overrides with a comment; the page follows the stage and the run without a reload.
  await recordStepStatuses(page);
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  await page.getByLabel('Comment (optional, recorded with your decision)').fill('accepted: MFA delete follows in the next change');
  await page.getByRole('button', { name: 'Override' }).click();
  await page.locator('#step-post_plan .badge', { hasText: 'passed' }).waitFor();
  const statuses = await page.evaluate(() => (window as unknown as { stepStatuses: string[] }).stepStatuses);
  assert.deepEqual(statuses, ['Needs a decision', 'Running', 'Passed'], `the stage showed ${statuses.join(' → ')}`);
  assert.equal(await page.getByRole('button', { name: 'Override' }).count(), 0);
  // The form went away with the focused button: focus continues at the stage's heading.
  await page.waitForFunction(() => document.activeElement?.id === 'step-post_plan', null, { timeout: 5000 });
  const recorded = await ctx.handle.db.selectFrom('task_stage_overrides').selectAll().where('task_stage_id', '=', stageId).execute();
  assert.equal(recorded.length, 1);
  assert.equal(recorded[0]!.comment, 'accepted: MFA delete follows in the next change');

  // The run moves on: the built-in executor's plan has no changes, so once the stage passes the run ends with
  // nothing to apply, as HCP ends it (the apply through the console is walked in console-new-install).
  await page.getByTestId('run-status').getByText('Planned, nothing to apply', { exact: true }).waitFor({ timeout: 20_000 });
  assert.equal(await page.getByRole('button', { name: 'Apply' }).count(), 0, 'nothing to apply: no Apply');
  assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);
  assert.equal((await waitForRunStatus(gated.api, runId, 'planned_and_finished')).attributes.status, 'planned_and_finished');
  await assertAccessible(page, 'the finished run page');
  await page.close();
  await readerPage.close();
});

/** A run whose mandatory post-plan task failed with `count` outcomes of three severities (the first with hostile Markdown). */
async function runWithOutcomes(count: number): Promise<{ gated: GatedWorkspace; runId: string }> {
  const gated = await gatedWorkspace(ctx, service, 'silent', { org, enforcement: 'mandatory', stages: ['post_plan'] });
  const runId = await startRun(gated, { message: 'a plan with many findings' });
  await waitUntil(() => service.deliveries().some((request) => request.json?.run_id === runId), 10_000, 'the task was never asked');
  const payload = service.deliveries().find((request) => request.json?.run_id === runId)!.json;
  const levels = [['High', 'error'], ['Medium', 'warning'], ['Low', 'info']] as const;
  const outcomes = Array.from({ length: count }, (_, index) => ({
    type: 'task-result-outcomes',
    attributes: {
      'outcome-id': `CHK-${String(index).padStart(3, '0')}`,
      description: `finding number ${index}`,
      body:
        index === 0
          ? '## Why\n\n**Public** bucket. <img src=x onerror="window.pwned=1"><script>window.pwned=2</script> [fix](javascript:window.pwned=3) [docs](https://example.com/docs)'
          : `Detail of finding ${index}`,
      tags: { Severity: [{ label: levels[index % 3]![0], level: levels[index % 3]![1] }] },
    },
  }));
  assert.equal(await service.callBack(payload, { status: 'failed', message: `${count} findings` }, outcomes), 200);
  await waitForRunStatus(gated.api, runId, 'post_plan_awaiting_decision');
  return { gated, runId };
}

test('the decision first: on a run with 150 outcomes the banner with Override and Discard is in the first screen at 1280×800 and 390×844; outcomes grouped, collapsed, paged with the true total; Markdown safe', async () => {
  const { gated, runId } = await runWithOutcomes(150);
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(viewport);
    await page.goto(runPath(gated, runId));
    const banner = page.getByRole('region', { name: 'Your decision is needed' });
    await banner.getByRole('button', { name: 'Override' }).waitFor();
    await banner.getByText(/Post-plan tasks:.*failed: 150 findings\./).waitFor();
    for (const name of ['Override', 'Discard']) {
      const box = await banner.getByRole('button', { name }).boundingBox();
      assert.ok(box && box.y + box.height <= viewport.height, `${name} ends at ${box && box.y + box.height} px, below the first screen of ${viewport.height} px`);
    }
    const comment = await banner.getByLabel('Comment (optional, recorded with your decision)').boundingBox();
    assert.ok(comment && comment.y + comment.height <= viewport.height);
    // The comment and the decision are the first stops after the title: a few Tab presses, not a hundred.
    await runHeading(page, 'a plan with many findings').focus();
    let presses = 0;
    while (presses < 10 && !(await page.evaluate(() => document.activeElement?.textContent === 'Override'))) {
      await page.keyboard.press('Tab');
      presses++;
    }
    assert.ok(presses < 10, 'Override is reached within a few Tab presses from the title');
    await assertAccessible(page, `a run with 150 outcomes at ${viewport.width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // The true total, grouped worst first, three of each shown, the rest a click away, then the next page.
  const step = postPlanStep(page);
  await step.getByRole('heading', { name: /^150 outcomes from .* \(100 loaded\)$/ }).waitFor();
  assert.deepEqual(await step.locator('.outcome-group h6 .tag').allInnerTexts(), ['Severity: High', 'Severity: Medium', 'Severity: Low']);
  assert.equal(await step.locator('li.outcome').count(), 9);
  await step.getByRole('button', { name: 'Show all 34 (31 more)' }).click();
  assert.equal(await step.locator('li.outcome').count(), 9 + 31);
  await step.getByRole('button', { name: 'Load 50 more of 150' }).click();
  await step.getByRole('heading', { name: /^150 outcomes from [^(]*$/ }).waitFor();
  assert.match(await step.locator('.group-counts').innerText(), /Severity: High: 50 · Severity: Medium: 50 · Severity: Low: 50/);

  // Markdown rendered, raw HTML shown as text and never run, a javascript: link not a link.
  await step.getByText('CHK-000', { exact: true }).click();
  const body = step.locator('.outcome-body').first();
  await body.getByRole('heading', { name: 'Why' }).waitFor();
  assert.equal(await body.locator('strong', { hasText: 'Public' }).count(), 1);
  assert.equal(await body.locator('img, script').count(), 0);
  assert.match(await body.innerText(), /<img src=x onerror=/);
  assert.equal(await body.locator('a[href^="javascript"]').count(), 0);
  assert.equal(await body.getByRole('link', { name: 'docs' }).getAttribute('rel'), 'noopener noreferrer');
  assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
  await assertAccessible(page, 'a run with its outcomes opened');
  await page.close();
});

test('where the stage says so, the banner counts approvals; the record says who decided what and when', async () => {
  const { gated, runId, stageId } = await runAwaitingOverride();
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  // Given to the page in the shape the gate work serves (stage approvals and overrides, run events), so the page is
  // tested on its own.
  await page.route(`**/api/v2/task-stages/${stageId}?**`, async (route) => {
    const response = await route.fetch();
    const document = await response.json();
    Object.assign(document.data.attributes, {
      'required-approvals': 2,
      approvals: 1,
      overrides: [{ 'overridden-by': 'alice', comment: 'first approval: the bucket is private in prod', 'created-at': '2026-11-26T03:00:05.000Z' }],
    });
    await route.fulfill({ response, json: document });
  });
  await page.route(`**/api/v2/runs/${runId}/run-events?**`, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/vnd.api+json',
      json: {
        data: [
          { id: 're-2', type: 'run-events', attributes: { action: 'overridden', description: 'Post-plan tasks overridden', 'created-at': '2026-11-26T03:00:05.000Z' }, relationships: { actor: { data: { id: 'user-1', type: 'users' } }, comment: { data: { id: 'wsc-1', type: 'comments' } } } },
          { id: 're-1', type: 'run-events', attributes: { action: 'queued', description: 'Run queued', 'created-at': '2026-11-26T03:00:00.000Z' }, relationships: { actor: { data: null }, comment: { data: null } } },
        ],
        included: [
          { id: 'user-1', type: 'users', attributes: { username: 'alice' } },
          { id: 'wsc-1', type: 'comments', attributes: { body: 'first approval: the bucket is private in prod' } },
        ],
      },
    }),
  );
  await page.goto(runPath(gated, runId));
  await page.getByTestId('approvals').getByText('1 of 2 approvals').waitFor();
  await page.getByText('The run goes on only when 2 people override it').waitFor();
  // Who gave the first approval, and why, at the stage in the timeline.
  const overrides = postPlanStep(page).getByRole('list', { name: 'Overrides' });
  assert.match(await overrides.innerText(), /Overridden by alice .*\n?first approval: the bucket is private in prod/s);
  const record = page.getByRole('region', { name: 'Record' });
  assert.deepEqual(
    (await record.getByRole('listitem').allInnerTexts()).map((text) => text.replace(/^.*? · /, '')),
    ['Run queued', 'Post-plan tasks overridden · by alice\nfirst approval: the bucket is private in prod'],
  );
  await assertAccessible(page, 'a run with two approvals needed and its record');
  await page.close();
});

test("the plan's changes by resource address and action, destructive first, the first ten shown", async () => {
  const gated = await gatedWorkspace(ctx, service, 'pass', { org, enforcement: 'advisory' });
  const runId = await startRun(gated, { 'plan-only': true });
  await waitForRunStatus(gated.api, runId, 'planned_and_finished');
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  // The no-op executor plans nothing: the page is given a plan with changes, as an agent-mode run has.
  await page.route(`**/api/v2/runs/${runId}?**`, async (route) => {
    const response = await route.fetch();
    const document = await response.json();
    for (const resource of document.included ?? []) if (resource.type === 'plans') resource.attributes['has-changes'] = true;
    await route.fulfill({ response, json: document });
  });
  const creates = Array.from({ length: 11 }, (_, index) => ({ address: `aws_s3_bucket.b${String(index).padStart(2, '0')}`, change: { actions: ['create'] } }));
  await page.route('**/api/v2/plans/*/json-output', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', json: { resource_changes: [...creates, { address: 'aws_db_instance.main', change: { actions: ['delete', 'create'] } }, { address: 'aws_iam_role.old', change: { actions: ['delete'] } }] } }),
  );
  await page.goto(runPath(gated, runId));
  const changes = page.getByRole('region', { name: 'Planned changes' });
  await changes.getByText('aws_iam_role.old').waitFor();
  const lines = await changes.getByRole('listitem').allInnerTexts();
  assert.equal(lines.length, 10);
  assert.match(lines[0]!, /aws_iam_role\.old destroy/);
  assert.match(lines[1]!, /aws_db_instance\.main replace/);
  await changes.getByRole('button', { name: 'Show all 13 changes' }).click();
  assert.equal(await changes.getByRole('listitem').count(), 13);
  await assertAccessible(page, 'a run with its planned changes');
  await page.close();
});

test('workspaces, a workspace with its attached task and runs, and the run tasks page', async () => {
  const gated = await gatedWorkspace(ctx, service, 'pass', { org, enforcement: 'advisory', stages: ['pre_plan', 'post_plan'] });
  const runId = await startRun(gated, { message: 'first run', 'plan-only': true });
  await waitForRunStatus(gated.api, runId, 'planned_and_finished');
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workspaces' }).click();
  await page.getByRole('heading', { name: `Workspaces of ${org.name}` }).waitFor();
  await assertAccessible(page, 'the workspace list');
  await page.getByRole('link', { name: gated.workspace.name }).click();
  await page.getByRole('heading', { name: `Workspace ${gated.workspace.name}` }).waitFor();
  const tasks = page.getByRole('table', { name: `Run tasks attached to ${gated.workspace.name}` });
  await tasks.getByText('pre-plan, post-plan').waitFor();
  await tasks.getByText('Advisory: a failure is only reported').waitFor();
  const runs = page.getByRole('table', { name: /^Runs of / });
  await runs.getByText('Planned, nothing to apply', { exact: true }).waitFor();
  await runs.getByText('first run').waitFor();
  await assertAccessible(page, 'the workspace page');
  await assertFitsPhoneWidth(page, 'the workspace page');

  // The run: both stages passed, in order, with the task's message; plan-only, so no Apply.
  // The row leads with the run's message, its id second.
  await runs.locator('tr', { hasText: runId }).getByRole('link', { name: 'first run' }).click();
  await waitForRunHeading(page, 'first run', runId);
  await page.locator('#step-pre_plan .badge', { hasText: 'passed' }).waitFor();
  await page.locator('#step-post_plan .badge', { hasText: 'passed' }).waitFor();
  await page.locator('#step-apply .badge', { hasText: 'not reached' }).waitFor();
  // Exactly: the run's record (its events) quotes the messages too, inside longer lines.
  assert.equal(await page.getByText('all good', { exact: true }).count(), 2);
  assert.equal(await page.getByRole('button', { name: /Apply|Discard|Cancel run/ }).count(), 0);
  await assertAccessible(page, 'a finished run page');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Run tasks' }).click();
  await page.getByRole('heading', { name: `Run tasks of ${org.name}` }).waitFor();
  const workspaces = page.getByRole('table', { name: /^Workspaces using / });
  await workspaces.getByRole('link', { name: gated.workspace.name }).first().waitFor();
  await assertAccessible(page, 'the run tasks page');
  await assertFitsPhoneWidth(page, 'the run tasks page');

  // A run id nobody may see: "not found or not visible to you", as the API answers.
  await page.goto(`${url}/app/${org.name}/workspaces/${gated.workspace.name}/runs/run-doesnotexist`);
  await page.getByText('Run: not found or not visible to you.').waitFor();
  await page.close();
});

test('links: HCP paths, the older link forms and hash links open their page; the back button works; / leads to the console', async () => {
  const gated = await gatedWorkspace(ctx, service, 'pass', { org, enforcement: 'advisory' });
  const runId = await startRun(gated, { 'plan-only': true, message: 'linked run' });
  await waitForRunStatus(gated.api, runId, 'planned_and_finished');
  const workspacePath = `${url}/app/${org.name}/workspaces/${gated.workspace.name}`;
  const page = await browser.newPage();
  await page.goto(`${url}/`);
  await page.getByRole('heading', { name: 'Sign in to Teamstage' }).waitFor();
  assert.equal(page.url(), `${url}/app/`);
  await signIn(page, url, org.owner.token);

  // A hash link of the console before history routing (a fragment change, then a fresh load): the page, at its path.
  await page.goto(`${url}/app/#/runs/${runId}`);
  await waitForRunHeading(page, 'linked run', runId);
  await page.waitForURL(runPath(gated, runId));
  await page.goto(`${url}/app/${org.name}/teams#/orgs/${org.name}/tasks`);
  await page.getByRole('heading', { name: `Run tasks of ${org.name}` }).waitFor();
  await page.waitForURL(`${url}/app/${org.name}/tasks`);
  // The forms run_app_url and workspace_app_url had before: still open, and show HCP's path.
  await page.goto(`${url}/app/${org.name}/${gated.workspace.name}/runs/${runId}`);
  await waitForRunHeading(page, 'linked run', runId);
  await page.waitForURL(runPath(gated, runId));
  await page.goto(`${url}/app/${org.name}/${gated.workspace.name}`);
  await page.getByRole('heading', { name: `Workspace ${gated.workspace.name}` }).waitFor();
  await page.waitForURL(workspacePath);

  // Inside the console a link changes the path without loading the page again; back and forward follow.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  await page.getByRole('table', { name: /^Runs of / }).locator('tr', { hasText: runId }).getByRole('link').first().click();
  await waitForRunHeading(page, 'linked run', runId);
  assert.equal(page.url(), runPath(gated, runId));
  await page.goBack();
  await page.getByRole('heading', { name: `Workspace ${gated.workspace.name}` }).waitFor();
  assert.equal(page.url(), workspacePath);
  await page.goForward();
  await waitForRunHeading(page, 'linked run', runId);
  await page.getByRole('link', { name: `Workspace ${gated.workspace.name}` }).click();
  await page.getByRole('heading', { name: `Workspace ${gated.workspace.name}` }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams' }).click();
  await page.getByRole('heading', { name: `Teams of ${org.name}` }).waitFor();
  assert.equal(page.url(), `${url}/app/${org.name}/teams`);
  assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);
  // A reload of a deep path shows the same page.
  await page.goto(runPath(gated, runId));
  await page.reload();
  await waitForRunHeading(page, 'linked run', runId);
  await page.close();
});

test('a member with no read right is told a workspace is not found, and empty lists say so', async () => {
  const other = await createOrganization(ctx);
  const member = await memberWithAccess(ctx, org, {});
  const gated = await gatedWorkspace(ctx, service, 'pass', { org });
  const page = await browser.newPage();
  await signIn(page, url, member.token);
  await page.goto(`${url}/app/${org.name}/workspaces/${gated.workspace.name}`);
  await page.getByText('Workspace: not found or not visible to you.').waitFor();
  await assertAccessible(page, 'a hidden workspace');

  const ownerPage = await browser.newPage();
  await signIn(ownerPage, url, other.owner.token);
  await ownerPage.goto(`${url}/app/${other.name}/workspaces`);
  await ownerPage.getByText('No workspace you can see in this organization.').waitFor();
  await ownerPage.goto(`${url}/app/${other.name}/tasks`);
  await ownerPage.getByText('This organization has no run task.').waitFor();
  await assertAccessible(ownerPage, 'an empty run tasks page');
  await page.close();
  await ownerPage.close();
});

test('a refresh that fails keeps the run on screen, says so, and recovers by itself', async () => {
  const { gated, runId } = await runAwaitingOverride();
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  await page.goto(runPath(gated, runId));
  await page.getByRole('button', { name: 'Override' }).waitFor();
  // The server stops answering: the next poll fails.
  await page.route(`**/api/v2/runs/${runId}?**`, (route) => route.abort());
  await page.getByText('Could not refresh the run').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Override' }).count(), 1);
  assert.equal(await postPlanStep(page).locator('.message', { hasText: 'two findings' }).count(), 1);
  await assertAccessible(page, 'a run page whose refresh failed');
  await page.unroute(`**/api/v2/runs/${runId}?**`);
  await page.getByText('Could not refresh the run').waitFor({ state: 'detached' });

  await assertFitsPhoneWidth(page, 'the run page awaiting an override');
  await page.close();
});

test('a plan with a log (log-read-url) shows it, read with the signed-in token', async () => {
  // This branch's server writes no logs (the no-op executor): the run document is given a log-read-url
  // on its way to the page, and the log itself is answered by the test, as the agent server answers it.
  const gated = await gatedWorkspace(ctx, service, 'pass', { org });
  const runId = await startRun(gated, { 'plan-only': true });
  await waitForRunStatus(gated.api, runId, 'planned_and_finished');
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  let logAuthorization: string | undefined;
  await page.route(`**/api/v2/runs/${runId}?**`, async (route) => {
    const response = await route.fetch();
    const document = await response.json();
    for (const resource of document.included ?? []) {
      if (resource.type === 'plans') resource.attributes['log-read-url'] = `http://teamstage.example/api/v2/plans/${resource.id}/log`;
    }
    await route.fulfill({ response, json: document });
  });
  await page.route('**/api/v2/plans/*/log', async (route) => {
    logAuthorization = await route.request().headerValue('authorization') ?? undefined;
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'Terraform will perform the following actions:\n\nPlan: 1 to add, 0 to change, 0 to destroy.' });
  });
  await page.goto(runPath(gated, runId));
  await page.getByText('The plan log').click();
  await page.getByText('Plan: 1 to add, 0 to change, 0 to destroy.').waitFor();
  // Read from the console's own origin (not the host the base URL names), with the signed-in token.
  assert.equal(logAuthorization, `Bearer ${org.owner.token}`);
  await assertAccessible(page, 'a run page with its plan log open');
  await page.close();
});
