/**
 * Policies in the console, against the real OPA (test/helpers/opa.ts): an owner creates a policy from Rego
 * (a policy that does not compile is refused with OPA's words, nothing kept) and a policy set over a
 * workspace; a member who may not write policies reads them and is offered no form. axe at both widths.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertAccessible, launchBrowser, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { createOrganization, createUser } from '../helpers/fixtures.js';
import { opaPath } from '../helpers/opa.js';
import { createWorkspace, memberWithAccess } from '../helpers/run-fixtures.js';

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

const REGO = `package terraform.policies.no_public_buckets

import rego.v1

deny contains msg if {
  some rc in input.plan.resource_changes
  rc.type == "aws_s3_bucket_acl"
  rc.change.after.acl == "public-read"
  msg := sprintf("%s is public", [rc.address])
}
`;

test('an owner creates a policy and a policy set over a workspace; Rego that does not compile is refused; a reader gets no form', async () => {
  const org = await createOrganization(server.ctx, 'policed', await createUser(server.ctx, 'pat'));
  await createWorkspace(org.owner.api, org.name, { name: 'storage' });
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policies' }).click();
  await page.getByRole('heading', { name: `Policies of ${org.name}` }).waitFor();
  await page.getByText('No policy set: runs of this organization are checked by no policy.').waitFor();
  await assertAccessible(page, 'an empty policies page');

  await page.getByLabel('Policy name').fill('broken');
  await page.getByLabel('Rego').fill('package x\n\ndeny contains msg if {');
  await page.getByRole('button', { name: 'Create policy', exact: true }).click();
  await page.getByRole('alert').waitFor();

  await page.getByLabel('Policy name').fill('no-public-buckets');
  await page.getByLabel('Query (each result it yields is a failure)').fill('data.terraform.policies.no_public_buckets.deny');
  await page.getByLabel('Rego').fill(REGO);
  await page.getByRole('button', { name: 'Create policy', exact: true }).click();
  await page.getByText('Policy created.').waitFor();
  await page.getByRole('table', { name: `Policies of ${org.name}` }).getByRole('cell', { name: 'no-public-buckets' }).waitFor();

  await page.getByLabel('Set name').fill('storage-rules');
  await page.getByRole('group', { name: 'Policies' }).getByRole('checkbox', { name: 'no-public-buckets' }).check();
  await page.getByRole('group', { name: 'Workspaces' }).getByRole('checkbox', { name: 'storage' }).check();
  await page.getByRole('button', { name: 'Create policy set' }).click();
  await page.getByText('Policy set created.').waitFor();
  const row = page.getByRole('table', { name: `Policy sets of ${org.name}` }).getByRole('row', { name: /storage-rules/ });
  assert.match(await row.innerText(), /no-public-buckets\s+storage\s+A failed mandatory policy may be overridden/);
  await assertAccessible(page, 'the policies page');
  await page.setViewportSize({ width: 390, height: 844 });
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false);
  await assertAccessible(page, 'the policies page at 390 px');

  const listed = await org.owner.api.get(`/organizations/${org.name}/policies`);
  assert.deepEqual(listed.body.data.map((policy: { attributes: { name: string } }) => policy.attributes.name).sort(), ['no-public-buckets']);

  const reader = await memberWithAccess(server.ctx, org, { 'read-workspaces': true });
  const readerPage = await browser.newPage();
  await signIn(readerPage, server.url, reader.token);
  await readerPage.goto(`${server.url}/app/${org.name}/policies`);
  await readerPage.getByRole('cell', { name: 'no-public-buckets' }).first().waitFor();
  assert.equal(await readerPage.getByRole('button', { name: /Create policy/ }).count(), 0);
  await page.close();
  await readerPage.close();
});
