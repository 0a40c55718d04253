/**
 * Issue 30's rough edges, each in a real browser against a real server on SQLite with a real run task
 * service on 127.0.0.1: run task cards at full width; no word broken mid-word at 390 px (a table that does
 * not fit becomes a list); an errored run says so and where, with the server's reason when it gives one,
 * and what it never reached in grey; ANSI colours in logs rendered, never shown raw; removing a member asks
 * first; a refused access rule is said once; read-only checkboxes look read-only; a team page asks for no
 * tokens its reader may not see.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, launchBrowser, signIn, type TestBrowser } from '../helpers/browser.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser, type TestOrganization } from '../helpers/fixtures.js';
import { memberWithAccess, waitForRunStatus } from '../helpers/run-fixtures.js';
import { gatedWorkspace, ScriptedTaskService, startListeningApp, startRun, type GatedWorkspace } from '../helpers/task-stage-scenario.js';
import type { TestContext } from '../helpers/test-app.js';
import { ensureWebBuilt } from '../helpers/web-build.js';

let ctx: TestContext;
let url: string;
let service: ScriptedTaskService;
let browser: TestBrowser;
let org: TestOrganization;

before(async () => {
  await ensureWebBuilt();
  ctx = await startListeningApp('sqlite');
  url = ctx.config.baseUrl.replace(/\/$/, '');
  service = await ScriptedTaskService.start();
  browser = await launchBrowser();
  org = await createOrganization(ctx, 'edges', await createUser(ctx, 'erin'));
});

after(async () => {
  await browser?.close();
  await service?.close();
  await ctx?.close();
});

function runPath(gated: GatedWorkspace, runId: string): string {
  return `${url}/app/${gated.org.name}/workspaces/${gated.workspace.name}/runs/${runId}`;
}

/**
 * Words (runs of non-space characters) inside `selector` that the layout split over two lines: each word's
 * text range must lie on one line. A string, not a function: tsx would wrap a function in helpers the page lacks.
 */
async function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(`(() => {
    const broken = [];
    for (const root of document.querySelectorAll(${JSON.stringify(selector)})) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.data.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  })()`);
}

async function atPhoneWidth(page: Page, where: string, check: () => Promise<void>): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    assert.equal(sideways, false, `${where} scrolls sideways at 390 px`);
    await check();
    await assertAccessible(page, `${where} at 390 px`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

test('run task cards take the full width; at 390 px no table breaks a word, and a table becomes a list', async () => {
  const gated = await gatedWorkspace(ctx, service, 'pass', { org, enforcement: 'advisory', stages: ['pre_plan', 'post_plan'] });
  const runId = await startRun(gated, { 'plan-only': true, message: 'awaiting review of the revocation' });
  await waitForRunStatus(gated.api, runId, 'planned_and_finished');
  const team = await createTeam(ctx, org, { name: 'reviewers-of-infrastructure', visibility: 'organization' });
  const member = await addMember(ctx, org, await createUser(ctx, 'frank-the-reviewer'));
  await addToTeam(org, team.id, member.username);
  assert.equal((await org.owner.api.post(`/teams/${team.id}/authentication-tokens`, { data: { attributes: { description: 'deployment pipeline' } } })).status, 201);
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);

  await page.goto(`${url}/app/${org.name}/tasks`);
  const card = page.locator('ul.task-cards > li').first();
  await card.waitFor();
  const wide = await card.boundingBox();
  assert.ok(wide && wide.width > 900, `a run task card is ${wide?.width} px wide at 1280 px`);
  await atPhoneWidth(page, 'the run tasks page', async () => {
    const narrow = await card.boundingBox();
    assert.ok(narrow && narrow.width > 340, `a run task card is ${narrow?.width} px wide at 390 px`);
    assert.deepEqual(await brokenWords(page, 'table.list'), []);
  });

  await page.goto(`${url}/app/${org.name}/workspaces/${gated.workspace.name}`);
  await page.getByRole('table', { name: /^Runs of / }).getByText('Planned, nothing to apply', { exact: true }).waitFor();
  await atPhoneWidth(page, 'the workspace page', async () => {
    assert.deepEqual(await brokenWords(page, 'table.list'), []);
    // Each row is a block of its own, each cell named by its column.
    assert.equal(await page.locator('table.list tr').first().evaluate((row) => getComputedStyle(row).display), 'block');
    const statusCell = page.getByRole('table', { name: /^Runs of / }).locator('tbody tr').first().locator('td').nth(1);
    assert.equal(await statusCell.evaluate((cell) => getComputedStyle(cell, '::before').content), '"Status: "');
  });

  await page.goto(`${url}/app/${org.name}/teams/${team.id}`);
  await page.getByRole('cell', { name: 'deployment pipeline', exact: true }).waitFor();
  await atPhoneWidth(page, 'the team page', async () => {
    assert.deepEqual(await brokenWords(page, 'table.list'), []);
  });
  await page.goto(`${url}/app/${org.name}/teams`);
  await page.getByRole('link', { name: 'reviewers-of-infrastructure' }).waitFor();
  await atPhoneWidth(page, 'the team list', async () => {
    assert.deepEqual(await brokenWords(page, 'table.list'), []);
  });
  await page.close();
});

test('an errored run says so at the top, where, and why when the server says; what it never reached is grey', async () => {
  const gated = await gatedWorkspace(ctx, service, 'error500', { org, enforcement: 'mandatory', stages: ['post_plan'] });
  const runId = await startRun(gated);
  await waitForRunStatus(gated.api, runId, 'errored', 20_000);
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  await page.goto(runPath(gated, runId));
  const notice = page.getByTestId('run-error');
  await notice.getByText('This run errored at post-plan tasks.').waitFor();
  // The server says why (the run's error-message, issue 27): the failed task and what it answered.
  assert.match(await notice.innerText(), /The task answered 500 instead of 200 after \d+ attempts/);
  for (const step of ['pre_apply', 'apply', 'post_apply']) {
    const badge = page.locator(`#step-${step} .badge`);
    if ((await badge.count()) === 0) continue; // no run task at that stage
    assert.equal(await badge.innerText(), 'not reached', step);
    assert.match(String(await badge.getAttribute('class')), /badge-idle/, step);
  }
  await assertAccessible(page, 'an errored run');
  await page.close();

  // A server that gives the reason (the run's `error-message`): shown as the server wrote it.
  const withReason = await browser.newPage();
  await signIn(withReason, url, org.owner.token);
  await withReason.route(`**/api/v2/runs/${runId}?**`, async (route) => {
    const response = await route.fetch();
    const document = await response.json();
    document.data.attributes['error-message'] = 'Task "scanner" could not be reached after 3 attempts';
    await route.fulfill({ response, json: document });
  });
  await withReason.goto(runPath(gated, runId));
  await withReason.getByTestId('run-error').getByText('Task "scanner" could not be reached after 3 attempts').waitFor();
  await withReason.close();
});

test('a log with ANSI colours shows them as colours, never as escape codes nor its STX/ETX framing bytes', async () => {
  const gated = await gatedWorkspace(ctx, service, 'pass', { org, enforcement: 'advisory' });
  const runId = await startRun(gated, { 'plan-only': true });
  await waitForRunStatus(gated.api, runId, 'planned_and_finished');
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  await page.route(`**/api/v2/runs/${runId}?**`, async (route) => {
    const response = await route.fetch();
    const document = await response.json();
    for (const resource of document.included ?? []) if (resource.type === 'plans') resource.attributes['log-read-url'] = `${url}/api/v2/plans/${resource.id}/log`;
    await route.fulfill({ response, json: document });
  });
  await page.route('**/api/v2/plans/*/log', (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: '\x02\x1b[0m\x1b[1mTerraform will perform:\x1b[0m\n  \x1b[32m+\x1b[0m resource "aws_s3_bucket" "b"\n<script>x</script>\x1b[2K\x03' }),
  );
  await page.goto(runPath(gated, runId));
  await page.getByText('The plan log').click();
  const log = page.getByLabel('The plan log');
  await log.getByText('Terraform will perform:').waitFor();
  const text = await log.innerText();
  assert.equal(text.includes('\x1b') || text.includes('[0m') || text.includes('[32m'), false, `raw escapes in ${JSON.stringify(text)}`);
  // HCP's log framing (STX first, ETX last) showed as a box glyph before the first word.
  assert.ok(text.startsWith('Terraform will perform:'), `the log starts with ${JSON.stringify(text.slice(0, 12))}`);
  assert.equal(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(text), false, `control bytes in ${JSON.stringify(text)}`);
  assert.match(text, /<script>x<\/script>/, 'markup in a log is shown as text');
  assert.equal(await log.locator('.ansi-green', { hasText: '+' }).count(), 1);
  assert.equal(await log.locator('.ansi-bold', { hasText: 'Terraform will perform:' }).count(), 1);
  await assertAccessible(page, 'a run page with a coloured log');
  await page.setViewportSize({ width: 390, height: 844 });
  await assertAccessible(page, 'a run page with a coloured log at 390 px');
  await page.close();
});

test('removing a member asks first (Escape or Keep keeps them); a refused rule is said once; read-only boxes look it; no token request a reader may not make', async () => {
  const team = await createTeam(ctx, org, { name: 'platform-people', visibility: 'organization', 'allow-member-token-management': false });
  const member = await addMember(ctx, org, await createUser(ctx, 'gina'));
  await addToTeam(org, team.id, member.username);
  const page = await browser.newPage();
  await signIn(page, url, org.owner.token);
  await page.goto(`${url}/app/${org.name}/teams/${team.id}`);
  await page.getByRole('cell', { name: member.username, exact: true }).waitFor();

  await page.getByRole('button', { name: `Remove ${member.username}` }).click();
  const confirm = page.getByRole('button', { name: `Remove ${member.username} now` });
  await confirm.waitFor();
  assert.equal(await confirm.evaluate((button) => button === document.activeElement), true, 'focus moves to the confirmation');
  assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes['users-count'], 1, 'nothing removed yet');
  await assertAccessible(page, 'a member removal awaiting confirmation');
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: `Remove ${member.username}` }).click();
  await page.getByRole('button', { name: 'Keep' }).click();
  assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes['users-count'], 1);
  await page.getByRole('button', { name: `Remove ${member.username}` }).click();
  await page.getByRole('button', { name: `Remove ${member.username} now` }).click();
  await page.getByText(`${member.username} removed from the team.`).waitFor();
  assert.equal((await org.owner.api.get(`/teams/${team.id}`)).body.data.attributes['users-count'], 0);

  // The rule under a box, then the server's refusal of it: one of the two at a time, never both.
  await page.getByRole('checkbox', { name: 'Manage teams' }).check();
  await page.locator('#access-manage-teams-rule', { hasText: 'Not met: Needs Manage membership.' }).waitFor();
  await page.getByRole('button', { name: 'Save organization access' }).click();
  await page.locator('#access-manage-teams-error').waitFor();
  assert.equal(await page.locator('#access-manage-teams-rule').count(), 0);
  await page.close();

  // A member without rights: disabled boxes and their labels are greyed; no request the API would refuse.
  await addToTeam(org, team.id, member.username);
  const reader = await browser.newPage();
  const refused: string[] = [];
  reader.on('response', (response) => {
    if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
  });
  const requested: string[] = [];
  reader.on('request', (request) => requested.push(request.url()));
  await signIn(reader, url, member.token);
  await reader.goto(`${url}/app/${org.name}/teams/${team.id}`);
  await reader.getByRole('heading', { name: 'Team platform-people' }).waitFor();
  await reader.getByRole('cell', { name: member.username, exact: true }).waitFor();
  const colors = await reader.evaluate(() => {
    const box = document.querySelector<HTMLInputElement>('input[name="manage-teams"]')!;
    return { disabled: box.disabled, label: getComputedStyle(box.closest('label')!).color, text: getComputedStyle(document.querySelector('h1')!).color };
  });
  assert.equal(colors.disabled, true);
  assert.notEqual(colors.label, colors.text, 'a read-only checkbox label is greyed like the rest of muted text');
  assert.equal(requested.some((address) => address.includes('/authentication-tokens')), false, requested.join('\n'));
  assert.deepEqual(refused, []);
  await reader.close();
});
