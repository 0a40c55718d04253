/**
 * The organization's audit trail in the console. HCP's audit trail API is read only with the organization's
 * audit trail token, so the page reads it with that token: an owner (`can-manage-auditing`) generates one
 * there (replacing one asks first), anyone may paste one. Entries say who did what to which resource and
 * when, filter by `since` and page; a token that reads no trail (404) or is no longer accepted (401) is
 * said so. The link is offered to owners only. By keyboard; axe at 1280×800 and 390×844.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { createOrganization, createTeam, createUser } from '../helpers/fixtures.js';
import { memberWithAccess } from '../helpers/run-fixtures.js';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('an owner generates the audit trail token and reads who changed what, since a time, page by page', async () => {
  const org = await createOrganization(server.ctx, 'audited', await createUser(server.ctx, 'ada'));
  const first = await createTeam(server.ctx, org, { name: 'platform', visibility: 'organization' });
  const changed = await org.owner.api.patch(`/teams/${first.id}`, {
    data: { type: 'teams', attributes: { visibility: 'secret', 'organization-access': { 'read-workspaces': true } } },
  });
  assert.equal(changed.status, 200, changed.text);
  for (let index = 0; index < 20; index += 1) await createTeam(server.ctx, org, { name: `squad-${String(index).padStart(2, '0')}` });
  // One whole second later, so a `since` at second precision falls between.
  await sleep(1100);
  await createTeam(server.ctx, org, { name: 'latecomer' });

  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit trail' }).click();
  await page.getByRole('heading', { name: `Audit trail of ${org.name}` }).waitFor();
  await page.getByText('The organization has no audit trail token yet.').waitFor();
  await assertAccessible(page, 'the audit trail page without a token');
  await saveScreenshot(page, 'audit-trail-token-1280');
  await page.getByRole('button', { name: 'Generate an audit trail token' }).focus();
  await page.keyboard.press('Enter');
  const secret = (await page.getByLabel('The new audit trail token').innerText()).trim();
  assert.ok(secret.length >= 32);
  await page.getByRole('button', { name: 'Read the trail with it' }).click();

  const table = page.getByRole('table', { name: `Audit trail of ${org.name}` });
  await table.waitFor();
  // What the API holds, read with the same token: the page must show exactly that (the trail also records
  // what the test's setup and the token's making did, so counts come from here, not from the test).
  const trail = await fetch(`${server.url}/api/v2/organization/audit-trail?page[size]=100`, { headers: { authorization: `Bearer ${secret}` } });
  const all = (await trail.json()) as { data: { timestamp: string; resource: { type: string; meta: { after?: { name?: string } } | null } }[]; pagination: { total_count: number } };
  const total = all.pagination.total_count;
  assert.ok(total > 20 && total <= 40, `two pages of changes (${total})`);
  const changes = (count: number) => `${count} ${count === 1 ? 'change' : 'changes'}`;
  // Newest first: the last change made is the first row; the oldest are a page further.
  await page.getByText(`Page 1 of 2 · ${changes(total)}`).waitFor();
  await table.getByRole('row', { name: /team latecomer created/ }).waitFor();
  const whens = await table.locator('tbody tr time').evaluateAll((times) => times.map((time) => Date.parse(time.getAttribute('datetime') ?? '')));
  assert.ok(whens.length > 0 && whens.every((when, index) => index === 0 || when <= whens[index - 1]!), 'newest first on the page');
  assert.equal(await table.getByRole('row', { name: /team platform created/ }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Newer' }).isDisabled(), true);
  await assertAccessible(page, 'the audit trail');
  await saveScreenshot(page, 'audit-trail-1280', { fullPage: true });

  // Paging, by keyboard, to the older changes.
  await page.getByRole('button', { name: 'Older' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText(`Page 2 of 2 · ${changes(total)}`).waitFor();
  const created = table.getByRole('row', { name: /team platform created/ });
  assert.match(await created.innerText(), /ada/);
  const updated = table.getByRole('row', { name: /team platform updated/ });
  const updateText = await updated.innerText();
  assert.match(updateText, /visibility: organization → secret/);
  assert.match(updateText, /organization-access\.read-workspaces: false → true/);
  assert.equal(await page.getByRole('button', { name: 'Older' }).isDisabled(), true);

  // Since: the API's own timestamp of the last squad, one second on, in the browser's local time.
  const lastSquad = all.data.find((entry) => entry.resource.type === 'team' && entry.resource.meta?.after?.name === 'squad-19')!;
  // In the page's own time zone; a string, as tsx's helpers do not exist in the page.
  const sinceMs = Math.floor(new Date(lastSquad.timestamp).getTime() / 1000) * 1000 + 1000;
  const sinceLocal = await page.evaluate<string>(
    `(() => { const at = new Date(${sinceMs}); const two = (n) => String(n).padStart(2, '0');
      return at.getFullYear() + '-' + two(at.getMonth() + 1) + '-' + two(at.getDate()) + 'T' + two(at.getHours()) + ':' + two(at.getMinutes()) + ':' + two(at.getSeconds()); })()`,
  );
  await page.getByLabel('Changes since (your local time)').fill(sinceLocal);
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  const since = all.data.filter((entry) => new Date(entry.timestamp).getTime() >= sinceMs);
  assert.ok(since.some((entry) => entry.resource.meta?.after?.name === 'latecomer'));
  await page.getByText(`Page 1 of 1 · ${changes(since.length)}`).waitFor();
  assert.equal(await table.getByRole('row', { name: /team latecomer created/ }).count(), 1);
  assert.equal(await table.getByRole('row', { name: /squad/ }).count(), 0);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Show every change' }).click();
  await page.getByText(`Page 1 of 2 · ${changes(total)}`).waitFor();
  await assertAccessible(page, 'the audit trail at 390 px');
  await saveScreenshot(page, 'audit-trail-390', { fullPage: true });
  await saveScreenshot(page, 'audit-trail-390-top');
  await assertFitsPhoneWidth(page, 'the audit trail');
  await page.setViewportSize({ width: 1280, height: 800 });

  // A token that is no audit trail token reads nothing, and the page says which token it wants.
  await page.getByRole('button', { name: 'Use another token' }).click();
  await page.getByLabel('Audit trail token', { exact: true }).fill(org.owner.token);
  await page.getByRole('button', { name: 'Read the trail', exact: true }).click();
  await page.getByText('This token reads no audit trail.').waitFor();

  // Replacing asks first; the old token is then refused (401) and forgotten.
  await page.getByRole('button', { name: 'Use another token' }).click();
  await page.getByText(/The organization has an audit trail token, made /).waitFor();
  await page.getByRole('button', { name: 'Replace the audit trail token' }).click();
  await page.getByRole('group', { name: /Replace the current audit trail token\?/ }).waitFor();
  // The question takes the focus to its action at once, so Enter confirms.
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Replace it now');
  await page.keyboard.press('Enter');
  const replacement = (await page.getByLabel('The new audit trail token').innerText()).trim();
  assert.notEqual(replacement, secret);
  await page.getByLabel('Audit trail token', { exact: true }).fill(secret);
  await page.getByRole('button', { name: 'Read the trail', exact: true }).click();
  await page.getByText('The audit trail token was not accepted: it was revoked, replaced or has expired.').waitFor();
  await page.getByLabel('Audit trail token', { exact: true }).waitFor();
  // The owner is still signed in: only the audit trail token was refused.
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await page.close();
});

test('the link is for owners; anyone given the token reads the trail, with no way to make one', async () => {
  const org = await createOrganization(server.ctx, 'handed', await createUser(server.ctx, 'hal'));
  await createTeam(server.ctx, org, { name: 'ops' });
  const issued = await org.owner.api.post(`/organizations/${org.name}/authentication-token?token=audit-trails`);
  assert.equal(issued.status, 201, issued.text);
  const auditor = await memberWithAccess(server.ctx, org, { 'manage-membership': true, 'manage-teams': true, 'read-workspaces': true });

  const page = await browser.newPage();
  await signIn(page, server.url, auditor.token);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams' }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit trail' }).count(), 0);
  await page.goto(`${server.url}/app/${org.name}/audit-trail`);
  await page.getByLabel('Audit trail token', { exact: true }).waitFor();
  assert.equal(await page.getByRole('button', { name: /Generate|Replace/ }).count(), 0);
  await page.getByLabel('Audit trail token', { exact: true }).fill(issued.body.data.attributes.token);
  await page.keyboard.press('Enter');
  await page.getByRole('table', { name: `Audit trail of ${org.name}` }).getByRole('row', { name: /team ops created/ }).waitFor();
  await assertAccessible(page, 'the audit trail read by a member with the token');
  await page.close();
});
