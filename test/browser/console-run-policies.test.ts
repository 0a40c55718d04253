/**
 * Issue 38, item 1: a run held by a failed mandatory OPA policy (the real OPA judges a real plan fixture,
 * 120_basic, whose 7 null_resources the policy forbids) shows the policy on its run page: the banner names it
 * with its level and its violation count, the post-plan stage lists the evaluation, the set and each policy
 * with its violations (the first few, the rest a click away, filterable by text), and an errored policy says
 * why. At 1280 and 390 px wide the violations are within the first two screens; axe at both widths.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { waitForRunHeading } from '../helpers/run-heading.js';
import { assertAccessible, assertFitsPhoneWidth, launchBrowser, saveScreenshot, signIn, type TestBrowser } from '../helpers/browser.js';
import { startConsoleServer } from '../helpers/console-server.js';
import { createOrganization, createUser } from '../helpers/fixtures.js';
import { HttpClient } from '../helpers/http-client.js';
import { opaPath } from '../helpers/opa.js';
import { globalPolicySet, plannedRun, reportPlan, strictCall } from '../helpers/policy-runs.js';
import { waitUntil } from '../helpers/wait-until.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PLAN_JSON = fs.readFileSync(path.join(ROOT, 'test/fixtures/terraform-plans/120_basic/plan.json'), 'utf8');

const NO_NULL_RESOURCES = `package teamstage.no_null
import rego.v1
deny contains msg if {
  some change in input.plan.resource_changes
  change.type == "null_resource"
  msg := sprintf("%s: null_resource is not allowed", [change.address])
}
`;
// Gives a string, not an array: OPA answers, and the policy errors with the reason Teamstage words.
const NOT_AN_ARRAY = `package teamstage.not_array
import rego.v1
deny := "not a list"
`;
const NOTHING_DENIED = `package teamstage.nothing
import rego.v1
deny := []
`;

let server: Awaited<ReturnType<typeof startConsoleServer>>;
let browser: TestBrowser;
let http: HttpClient;

before(async () => {
  server = await startConsoleServer({ TEAMSTAGE_OPA_PATH: opaPath() });
  http = new HttpClient(server.url);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await http?.close();
  await server?.close();
});

/** Where an element starts, in screens of the page's viewport from the top of the page. */
async function screensDown(page: Page, selector: string): Promise<number> {
  return page.evaluate(
    `(() => { const el = document.querySelector(${JSON.stringify(selector)}); return (el.getBoundingClientRect().top + window.scrollY) / window.innerHeight; })()`,
  ) as Promise<number>;
}

test('a run held by a mandatory policy names it, lists its 7 violations in the first two screens, filters them, and says why another errored', async () => {
  const org = await createOrganization(server.ctx, 'policy-held', await createUser(server.ctx, 'rita'));
  const call = strictCall(http);
  const owner = { ownerToken: org.owner.token, organization: org.name };
  await globalPolicySet(call, owner, [
    { name: 'no-null-resources', query: 'data.teamstage.no_null.deny', rego: NO_NULL_RESOURCES, level: 'mandatory' },
    { name: 'list-shaped', query: 'data.teamstage.not_array.deny', rego: NOT_AN_ARRAY, level: 'advisory' },
    { name: 'nothing-denied', query: 'data.teamstage.nothing.deny', rego: NOTHING_DENIED, level: 'mandatory' },
  ]);
  const { runId, planId } = await plannedRun(call, server.url, owner, 'network', PLAN_JSON);
  await reportPlan(call, org.owner.token, planId);
  await waitUntil(
    async () => (await call(org.owner.token, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status === 'post_plan_awaiting_decision',
    60_000,
    `run ${runId} was not held by its policy`,
  );

  const page = await browser.newPage();
  await signIn(page, server.url, org.owner.token);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${server.url}/app/${org.name}/workspaces/network/runs/${runId}`);
    await waitForRunHeading(page, 'Queued manually via the API', runId);
    // The banner says what failed, as the CLI printed it.
    const banner = page.locator('#decision');
    await banner.getByTestId('policy-findings').getByText('policy no-null-resources (mandatory): 7 violations', { exact: true }).waitFor();
    assert.doesNotMatch(await banner.innerText(), /a mandatory task failed/);

    // The violations themselves: the first three in the decision panel, within the first screen; all of them at the stage.
    const preview = banner.getByRole('list', { name: 'First violations: policy no-null-resources (mandatory): 7 violations' });
    assert.deepEqual(await preview.getByRole('listitem').allInnerTexts(), [
      'module.foo.null_resource.aliased: null_resource is not allowed',
      'module.foo.null_resource.foo: null_resource is not allowed',
      'null_resource.bar: null_resource is not allowed',
    ]);
    const down = await screensDown(page, 'section.decision ul.violations');
    assert.ok(down < 1, `at ${width} px the first violations start ${down.toFixed(2)} screens down`);
    const overrideBox = await banner.getByRole('button', { name: 'Override' }).boundingBox();
    assert.ok(overrideBox && overrideBox.y + overrideBox.height <= 800 * 2, `at ${width} px Override ends at ${overrideBox?.y} px`);
    const violations = page.getByRole('list', { name: 'Violations of no-null-resources' });
    await violations.waitFor();
    assert.equal(await violations.getByRole('listitem').count(), 5, 'the first five, the rest a click away');
    await page.evaluate('window.scrollTo(0, 0)');
    await saveScreenshot(page, width === 1280 ? 'run-policy-held' : 'run-policy-held-phone');
    // The rest a click away: the link in the panel leads to the stage, which lists them all.
    await banner.getByRole('link', { name: 'and 4 more in post-plan tasks' }).click();
    await page.waitForFunction(() => document.activeElement?.id === 'step-post_plan', null, { timeout: 5000 });
    await page.getByRole('button', { name: 'Show all 7 (2 more)' }).click();
    assert.deepEqual(await violations.getByRole('listitem').allInnerTexts(), [
      'module.foo.null_resource.aliased: null_resource is not allowed',
      'module.foo.null_resource.foo: null_resource is not allowed',
      'null_resource.bar: null_resource is not allowed',
      'null_resource.baz[0]: null_resource is not allowed',
      'null_resource.baz[1]: null_resource is not allowed',
      'null_resource.baz[2]: null_resource is not allowed',
      'null_resource.foo: null_resource is not allowed',
    ]);
    const stage = page.locator('#step-post_plan').locator('..');
    assert.match(await stage.innerText(), /1 mandatory failed · 0 advisory failed · 1 errored · 1 passed/);
    assert.match(await stage.innerText(), /Policy set set-3 \(may be overridden\)/);
    // The errored policy says why; the passing one is listed only when asked for.
    assert.match(await stage.locator('li.policy-outcome', { hasText: 'list-shaped' }).innerText(), /Why it errored: the query data\.teamstage\.not_array\.deny must give an array, it gave a string/);
    assert.equal(await stage.locator('li.policy-outcome', { hasText: 'nothing-denied' }).count(), 0);
    await assertAccessible(page, `a policy-held run at ${width} px`);
    if (width === 1280) await saveScreenshot(page, 'run-policy-violations');

    // Filtered: by the violations' text, and to every policy.
    await stage.getByLabel('Filter violations').fill('baz');
    await waitUntil(async () => (await violations.getByRole('listitem').count()) === 3, 5000, 'the filter did not narrow the violations to the three baz');
    await stage.getByText('(3 match the filter)').waitFor();
    await stage.getByLabel('Show').selectOption('all');
    await stage.locator('li.policy-outcome', { hasText: 'nothing-denied' }).waitFor();
  }
  await assertFitsPhoneWidth(page, 'a policy-held run');
  await page.close();
});
