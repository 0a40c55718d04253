/**
 * Issue 38, item 3: the workspace page is about its runs. They come first (above settings and run tasks),
 * each headed by its message with its id second; the list follows the server while the page is open, with
 * one waiting read at a time (GET /workspaces/:id/runs?wait=…), so a run created by the API shows within
 * 2 s without a reload; a pending run says its place in the queue and the run it waits for. At 1280 and
 * 390 px, axe at both.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { createOrganization, createUser } from '../helpers/fixtures.js';
import { createRun, createRunnableWorkspace, waitForRunStatus } from '../helpers/run-fixtures.js';

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

test('a run created by the API shows within 2 s without a reload; a pending run shows its place and the run it waits for; one waiting read per page', async () => {
  const org = await createOrganization(server.ctx, 'watched', await createUser(server.ctx, 'wendy'));
  const api = org.owner.api;
  // Agent mode: nothing claims the plan, so the first run holds the workspace and the next one queues behind it.
  const workspace = await createRunnableWorkspace(server.ctx, api, org.name, { name: 'payments', 'execution-mode': 'agent' });
  const page = await browser.newPage();
  const listReads: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes(`/workspaces/${workspace.id}/runs`)) listReads.push(request.url());
  });
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/workspaces/payments`);
  await page.getByRole('heading', { name: 'Workspace payments' }).waitFor();
  const runsSection = page.getByRole('region', { name: 'Runs' });
  await runsSection.getByText('No run in this workspace yet.').waitFor();
  // Runs come first: their heading is above the settings.
  const runsTop = (await page.getByRole('heading', { name: 'Runs', exact: true }).boundingBox())!.y;
  const settingsTop = (await page.getByRole('heading', { name: 'Settings', exact: true }).boundingBox())!.y;
  assert.ok(runsTop < settingsTop, 'the runs are above the settings');
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  // A run created by the API shows within 2 s, headed by its message, its id second.
  const first = await createRun(api, workspace.id, { message: 'rotate the signing key' });
  const table = page.getByRole('table', { name: /^Runs of payments/ });
  await table.getByRole('link', { name: 'rotate the signing key' }).waitFor({ timeout: 2000 });
  await table.locator('tr', { hasText: first.data.id }).getByText(first.data.id, { exact: true }).waitFor();
  await waitForRunStatus(api, first.data.id, 'plan_queued');

  // The next one queues behind it: its place and the run it waits for.
  const second = await createRun(api, workspace.id, { message: 'raise the rate limit' });
  const secondRow = table.locator('tr', { hasText: second.data.id });
  await secondRow.getByTestId('queue-place').waitFor({ timeout: 2000 });
  assert.equal(await secondRow.getByTestId('queue-place').innerText(), '1 run ahead in the queue, waits for rotate the signing key');
  assert.equal(await secondRow.getByTestId('queue-place').getByRole('link').getAttribute('href'), `/app/${org.name}/workspaces/payments/runs/${first.data.id}`);
  assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the page was not reloaded');
  await assertAccessible(page, 'the workspace page with a queued run');
  await saveScreenshot(page, 'workspace-runs');

  // One waiting read at a time, answered by a change: every read after the first waits, and an idle page reads
  // nothing new (a poll would have read again within the second; the server's wait is 30 s).
  assert.ok(listReads.slice(1).every((read) => read.includes('wait=30') && read.includes('wait-token=')), listReads.join(', '));
  const readsBefore = listReads.length;
  await page.waitForTimeout(1500);
  assert.equal(listReads.length, readsBefore, 'no read while nothing changed');
  assert.equal(server.ctx.services.runWaits.waiting, 1, 'the page holds one waiting read');

  await page.setViewportSize({ width: 390, height: 844 });
  await secondRow.getByTestId('queue-place').waitFor();
  const placeBox = await secondRow.getByTestId('queue-place').boundingBox();
  assert.ok(placeBox && placeBox.y + placeBox.height <= 844, `at 390 px the pending run's place ends at ${placeBox?.y} px, below the first screen`);
  await assertAccessible(page, 'the workspace page at 390 px');
  await saveScreenshot(page, 'workspace-runs-phone');
  await assertFitsPhoneWidth(page, 'the workspace page with runs');
  await page.close();
});
