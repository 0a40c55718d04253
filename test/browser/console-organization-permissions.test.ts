/**
 * People and policy controls follow the organization's permissions, not ownership: a member whose team
 * holds `manage-membership` is offered the invitation form and the removal of people the server lets them
 * remove (not an owner's), a member with `manage-policies` the policy forms; a member of a team without
 * those rights sees the pages and no control. Each offered control is used by keyboard and works; axe at
 * 1280×800 and 390×844.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { addMember, addToTeam, createOrganization, createTeam, createUser } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { memberWithAccess } from '../helpers/run-fixtures.js';

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: TestBrowser;

before(async () => {
  server = await startConsoleServer({ TEAMSTAGE_OPA_PATH: opaPath() });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('manage-membership: the invite form and Remove for everyone but owners; without it, neither', async () => {
  const org = await createOrganization(server.ctx, 'peopled', await createUser(server.ctx, 'olga'));
  const recruiters = await createTeam(server.ctx, org, { name: 'recruiters', visibility: 'organization', 'organization-access': { 'manage-membership': true } });
  const recruiter = await addMember(server.ctx, org, await createUser(server.ctx, 'rita'));
  await addToTeam(org, recruiters.id, recruiter.username);
  const leaver = await addMember(server.ctx, org, await createUser(server.ctx, 'leo'));
  const reader = await memberWithAccess(server.ctx, org, { 'read-workspaces': true });

  const page = await browser.newPage();
  await signIn(page, server.url, recruiter.token);
  await page.goto(`${server.url}/app/${org.name}/people`);
  await page.getByRole('heading', { name: `People of ${org.name}` }).waitFor();
  await page.getByRole('heading', { name: 'Invite someone' }).waitFor();
  // The owner's row offers nothing (only owners remove owners); the others each offer Remove.
  assert.equal(await page.getByRole('button', { name: 'Remove olga from the organization' }).count(), 0);
  await page.getByRole('button', { name: 'Remove leo from the organization' }).waitFor();
  // The teams offered on the invitation are those the recruiter may add members to (not the secret owners team).
  const teamChoices = page.getByRole('group', { name: 'Teams to join on accepting (optional)' }).getByRole('checkbox');
  assert.deepEqual(await teamChoices.evaluateAll((boxes) => boxes.map((box) => box.parentElement?.textContent?.trim())), ['recruiters']);
  await assertAccessible(page, 'the people page of a membership manager');
  await saveScreenshot(page, 'people-membership-manager-1280', { fullPage: true });

  // By keyboard: invite into recruiters, then remove leo with the confirmation.
  await page.getByLabel('Email').focus();
  await page.keyboard.type('newcomer@example.test');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  assert.equal(await teamChoices.first().isChecked(), true);
  await page.getByRole('button', { name: 'Invite', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('newcomer@example.test is invited.').waitFor();
  await page.getByRole('button', { name: 'Remove leo from the organization' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Remove leo now' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText(`leo removed from ${org.name}.`).waitFor();
  const left = await org.owner.api.get(`/organization-memberships/${leaver.membershipId}`);
  assert.equal(left.status, 404);
  const invited = await org.owner.api.get(`/organizations/${org.name}/organization-memberships?filter[email]=newcomer@example.test&include=teams`);
  assert.deepEqual(invited.body.data[0].relationships.teams.data.map((team: { id: string }) => team.id), [recruiters.id]);

  await page.setViewportSize({ width: 390, height: 844 });
  await assertAccessible(page, 'the people page at 390 px');
  await saveScreenshot(page, 'people-membership-manager-390', { fullPage: true });
  await assertFitsPhoneWidth(page, 'the people page');

  const readerPage = await browser.newPage();
  await signIn(readerPage, server.url, reader.token);
  await readerPage.goto(`${server.url}/app/${org.name}/people`);
  await readerPage.getByRole('cell', { name: 'olga', exact: true }).waitFor();
  assert.equal(await readerPage.getByRole('heading', { name: 'Invite someone' }).count(), 0);
  assert.equal(await readerPage.getByRole('button', { name: /^Remove / }).count(), 0);
  assert.equal(await readerPage.getByRole('columnheader', { name: 'Actions' }).count(), 0);
  await assertAccessible(readerPage, 'the people page of a reader');
  await page.close();
  await readerPage.close();
});

test('manage-policies: the policy forms; without it, none', async () => {
  const org = await createOrganization(server.ctx, 'ruled', await createUser(server.ctx, 'ruth'));
  const author = await memberWithAccess(server.ctx, org, { 'manage-policies': true });
  const other = await memberWithAccess(server.ctx, org, { 'manage-run-tasks': true });

  const page = await browser.newPage();
  await signIn(page, server.url, author.token);
  await page.goto(`${server.url}/app/${org.name}/policies`);
  await page.getByRole('heading', { name: 'Create a policy', exact: true }).waitFor();
  await page.getByRole('heading', { name: 'Create a policy set' }).waitFor();
  await page.getByLabel('Policy name').fill('no-deletes');
  await page.getByLabel('Rego').fill('package terraform\n\nimport rego.v1\n\ndeny contains "never" if false\n');
  await page.getByRole('button', { name: 'Create policy', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Policy created.').waitFor();
  await page.getByRole('table', { name: `Policies of ${org.name}` }).getByRole('cell', { name: 'no-deletes' }).waitFor();
  await assertAccessible(page, 'the policies page of a policy author');
  await saveScreenshot(page, 'policies-author-1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await assertAccessible(page, 'the policies page of a policy author at 390 px');
  await saveScreenshot(page, 'policies-author-390', { fullPage: true });

  const otherPage = await browser.newPage();
  await signIn(otherPage, server.url, other.token);
  await otherPage.goto(`${server.url}/app/${org.name}/policies`);
  await otherPage.getByRole('cell', { name: 'no-deletes' }).waitFor();
  assert.equal(await otherPage.getByRole('heading', { name: /^Create a policy/ }).count(), 0);
  assert.equal(await otherPage.getByRole('button', { name: /Create policy/ }).count(), 0);
  await assertAccessible(otherPage, 'the policies page without manage-policies');
  await page.close();
  await otherPage.close();
});
