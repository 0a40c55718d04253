/**
 * Issue 38, item 4: the plan, structured. A real agent run's plan JSON, built from the real fixtures in
 * test/fixtures/terraform-plans (120_basic's creates and outputs, identity's update, action_reason's tainted
 * replace, has_checks' create with a sensitive attribute), with what no fixture has adapted from them: the
 * identity update's `name` marked sensitive, the replace's trigger changed with its replace_paths, one
 * no_changes resource destroyed, and the identity update reported as drift. Each change opens on its
 * attributes (before → after, the attribute forcing the replace, sensitive values masked and never in the
 * page, unknown ones "known after apply"); outputs and drift are listed; a plan of 3,000 changes is paged.
 * At 1280 and 390 px, axe at both.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { createOrganization, createUser } from '../helpers/fixtures.js';
import { HttpClient } from '../helpers/http-client.js';
import { plannedRun, reportPlan, strictCall } from '../helpers/policy-runs.js';
import { waitUntil } from '../helpers/wait-until.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name, 'plan.json'), 'utf8'));

/** The plan JSON described above. */
function reviewPlan(): Record<string, unknown> {
  const basic = fixture('120_basic');
  const update = structuredClone(fixture('identity').resource_changes[0]);
  update.change.after_sensitive = { name: true };
  update.change.before_sensitive = { name: true };
  update.change.after.name = 'sekrit-name-value';
  const replace = structuredClone(fixture('action_reason').resource_changes[0]);
  replace.change.after.triggers.name = 'demo2';
  replace.change.replace_paths = [['triggers', 'name']];
  const destroy = structuredClone(fixture('no_changes').resource_changes.find((entry: any) => entry.address === 'null_resource.foo'));
  destroy.change = { ...destroy.change, actions: ['delete'], after: null, after_unknown: {}, after_sensitive: false };
  const sensitiveCreate = structuredClone(fixture('has_checks').resource_changes[0]);
  sensitiveCreate.change.after.sensitive_content = 'sekrit-file-body';
  const drift = structuredClone(fixture('identity').resource_changes[0]);
  return {
    ...basic,
    resource_changes: [...basic.resource_changes, update, replace, destroy, sensitiveCreate],
    resource_drift: [drift],
  };
}

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: TestBrowser;
let http: HttpClient;

before(async () => {
  server = await startConsoleServer();
  http = new HttpClient(server.url);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await http?.close();
  await server?.close();
});

async function openChange(page: Page, address: string) {
  const changes = page.getByRole('region', { name: 'Planned changes' });
  const item = changes.getByRole('listitem').filter({ has: page.locator('summary', { hasText: address }) }).first();
  if (!(await item.locator('details').evaluate((details) => (details as HTMLDetailsElement).open))) await item.locator('summary').click();
  const table = item.getByRole('table', { name: `Attribute changes of ${address}` });
  await table.waitFor();
  return table;
}

test('a plan with creates, a sensitive update, a replace and a destroy: each opens on its attributes, sensitive values masked; outputs; drift', async () => {
  const org = await createOrganization(server.ctx, 'structured', await createUser(server.ctx, 'sam'));
  const call = strictCall(http);
  const owner = { ownerToken: org.owner.token, organization: org.name };
  const { runId, planId } = await plannedRun(call, server.url, owner, 'review', JSON.stringify(reviewPlan()));
  await reportPlan(call, org.owner.token, planId);
  await waitUntil(async () => (await call(org.owner.token, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status === 'planned', 30_000, 'the run was not planned');

  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${server.url}/app/${org.name}/workspaces/review/runs/${runId}`);
    const changes = page.getByRole('region', { name: 'Planned changes' });
    await changes.getByText('null_resource.foo').first().waitFor();
    const summaries = await changes.locator('summary').allInnerTexts();
    assert.match(summaries[0]!, /null_resource\.foo destroy/);
    assert.match(summaries[1]!, /null_resource\.example replace \(replace because tainted\)/);
    assert.match(summaries[2]!, /corner_user_identity\.user update in place/);

    // The replace: the attribute that forces it, before → after; the new id known after apply.
    const replace = await openChange(page, 'null_resource.example');
    const forcing = replace.getByRole('row').filter({ hasText: 'triggers.name' });
    assert.match(await forcing.innerText(), /forces replacement/);
    assert.match(await forcing.innerText(), /"demo"[\s\S]*"demo2"/);
    assert.match(await replace.getByRole('row').filter({ hasText: /^\s*id/ }).innerText(), /\(known after apply\)/);

    // The update: what differs only; the sensitive name masked on both sides.
    const update = await openChange(page, 'corner_user_identity.user');
    assert.deepEqual(await update.locator('tbody tr td:first-child').allInnerTexts(), ['age', 'name']);
    assert.match(await update.getByRole('row').filter({ hasText: 'age' }).innerText(), /null[\s\S]*999/);
    assert.match(await update.getByRole('row').filter({ hasText: 'name' }).innerText(), /\(sensitive value\)[\s\S]*\(sensitive value\)/);

    // The destroy lists what goes; a create's sensitive attribute is masked too.
    const destroy = await openChange(page, 'null_resource.foo');
    assert.match(await destroy.innerText(), /id/);
    const created = await openChange(page, 'module.files.local_file.foo["file1.txt"]');
    assert.match(await created.getByRole('row').filter({ hasText: 'sensitive_content' }).innerText(), /\(sensitive value\)/);
    assert.match(await created.getByRole('row').filter({ hasText: 'content_sha1' }).innerText(), /\(known after apply\)/);
    const everything = await page.locator('body').innerText();
    assert.doesNotMatch(everything, /sekrit/, 'no sensitive value reaches the page');

    // Outputs (a sensitive one masked, an unknown one known after apply) and the drift.
    const outputs = page.getByRole('region', { name: 'Output changes' });
    assert.match(await outputs.getByRole('listitem').filter({ hasText: /^\+\s*foo/ }).innerText(), /\(sensitive value\)/);
    assert.match(await outputs.getByRole('listitem').filter({ hasText: 'interpolated_deep' }).innerText(), /\(known after apply\)/);
    assert.match(await outputs.getByRole('listitem').filter({ hasText: /^\+\s*list/ }).innerText(), /\["foo","bar"\]/);
    await page.getByRole('region', { name: 'Resource drift' }).getByText('corner_user_identity.user').waitFor();
    await assertAccessible(page, `the structured plan at ${width} px`);
    await update.scrollIntoViewIfNeeded();
    await saveScreenshot(page, width === 1280 ? 'run-structured-plan' : 'run-structured-plan-phone');
  }
  await assertFitsPhoneWidth(page, 'the structured plan');
  await page.close();
});

test('a plan of 3,000 changes is paged: ten, then a hundred at a time', async () => {
  const org = await createOrganization(server.ctx, 'bigplan', await createUser(server.ctx, 'bea'));
  const call = strictCall(http);
  const owner = { ownerToken: org.owner.token, organization: org.name };
  const creates = Array.from({ length: 3000 }, (_, index) => ({
    address: `null_resource.n${String(index).padStart(4, '0')}`, type: 'null_resource', name: `n${index}`,
    change: { actions: ['create'], before: null, after: { triggers: { index: String(index) } }, after_unknown: { id: true }, before_sensitive: false, after_sensitive: {} },
  }));
  const { runId, planId } = await plannedRun(call, server.url, owner, 'big', JSON.stringify({ format_version: '1.2', resource_changes: creates }));
  await reportPlan(call, org.owner.token, planId);
  await waitUntil(async () => (await call(org.owner.token, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status === 'planned', 30_000, 'the run was not planned');
  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  await page.goto(`${server.url}/app/${org.name}/workspaces/big/runs/${runId}`);
  const changes = page.getByRole('region', { name: 'Planned changes' });
  await changes.getByRole('button', { name: 'Show 100 more (10 of 3000 shown)' }).click();
  await changes.getByRole('button', { name: 'Show 100 more (110 of 3000 shown)' }).waitFor();
  assert.equal(await changes.getByRole('listitem').count(), 110);
  const item = await openChange(page, 'null_resource.n0105');
  assert.match(await item.innerText(), /triggers\.index[\s\S]*"105"/);
  await page.close();
});
