/**
 * The console with a large plan (issue 38: "fast on a plan with thousands of resources, measured in the console
 * bench row"): a run whose plan JSON holds 5,000 resource changes, sent through the served pipeline protocol
 * (claim, upload the JSON output, report), opened in Debian's chromium. Two times, each beside its limit:
 *  - navigation start → the first change of the structured plan on screen (fresh browser context, signed in);
 *    the limit: the same plan JSON fetched and parsed in the same browser, nothing rendered;
 *  - a click on a change → its attribute table painted (two animation frames); the limit: a bare <details>
 *    whose toggle inserts the same table's HTML by hand, no framework.
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../test/helpers/browser.js';
import { HttpClient } from '../test/helpers/http-client.js';
import { plannedRun, reportPlan, strictCall } from '../test/helpers/policy-runs.js';
import type { ServerProcess } from '../test/helpers/server-process.js';
import { waitUntil } from '../test/helpers/wait-until.js';
import { percentiles } from './measure.js';
import { fmt } from './row-text.js';
import type { Row } from './row.js';
import type { Seeded } from './seed.js';

export const LARGE_PLAN_SCENARIO = 'console: run page with a 5,000-change plan, first change shown and a change expanded';
const CHANGES = 5000;

/** A plan of `count` changes: creates, updates (one attribute sensitive), replaces and destroys, a dozen attributes each. */
export function largePlan(count: number): string {
  const attributes = (index: number, generation: number) =>
    Object.fromEntries(Array.from({ length: 12 }, (_, key) => [`attribute_${key}`, `value-${index}-${key}-${generation}`]));
  const actions = [['create'], ['update'], ['delete', 'create'], ['delete']];
  const resourceChanges = Array.from({ length: count }, (_, index) => {
    const action = actions[index % actions.length]!;
    const before = action[0] === 'create' ? null : { ...attributes(index, 0), password: 'old-secret' };
    const after = action.length === 1 && action[0] === 'delete' ? null : { ...attributes(index, 1), password: 'new-secret' };
    return {
      address: `null_resource.r${String(index).padStart(5, '0')}`,
      mode: 'managed', type: 'null_resource', name: `r${index}`,
      change: {
        actions: action, before, after, after_unknown: after ? { id: true } : {},
        before_sensitive: before ? { password: true } : false, after_sensitive: after ? { password: true } : false,
        ...(action.length === 2 ? { replace_paths: [['attribute_0']] } : {}),
      },
    };
  });
  return JSON.stringify({ format_version: '1.2', terraform_version: '1.9.0', resource_changes: resourceChanges });
}

/** Notes, from before the page's own scripts, when the first planned change exists (plain JavaScript: no tsx helpers). */
const WATCH_FOR_FIRST_CHANGE = `(() => {
  const observer = new MutationObserver(() => {
    if (!document.querySelector('section[aria-label="Planned changes"] li details summary')) return;
    window.firstChangeAt = performance.now();
    observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;

/** Resolves once `ready()` holds, checked at every DOM change, then two frames later (painted). */
const PAINTED_AFTER = `(ready, root) => new Promise((resolve) => {
  const done = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now())));
  if (ready()) return done();
  const observer = new MutationObserver(() => { if (ready()) { observer.disconnect(); done(); } });
  observer.observe(root, { childList: true, subtree: true });
})`;

/** Click the first change's summary; ms until its attribute table is painted. Returns the table's HTML too. */
const EXPAND_FIRST_CHANGE = `(async () => {
  const paintedAfter = ${PAINTED_AFTER};
  const details = document.querySelector('section[aria-label="Planned changes"] li details');
  const start = performance.now();
  details.querySelector('summary').click();
  const end = await paintedAfter(() => details.querySelector('table'), details);
  return { ms: end - start, html: details.querySelector('table').outerHTML };
})()`;

/** The limit of expanding: a bare <details> whose toggle inserts the given table HTML; ms from click to painted. */
const EXPAND_BARE = `(async (html) => {
  const paintedAfter = ${PAINTED_AFTER};
  const details = document.createElement('details');
  details.innerHTML = '<summary>bare</summary>';
  details.addEventListener('toggle', () => { if (details.open) details.insertAdjacentHTML('beforeend', html); });
  document.body.prepend(details);
  const start = performance.now();
  details.querySelector('summary').click();
  const end = await paintedAfter(() => details.querySelector('table'), details);
  details.remove();
  return end - start;
})`;

/** The limit of the first render: the plan JSON fetched (no cache) and parsed in the page, with the page's own token. */
const FETCH_AND_PARSE = `(async (path) => {
  const start = performance.now();
  const answer = await fetch(path, { cache: 'no-store', headers: { authorization: 'Bearer ' + sessionStorage.getItem('teamstage.token') } });
  const plan = JSON.parse(await answer.text());
  if (!Array.isArray(plan.resource_changes)) throw new Error('no plan');
  return performance.now() - start;
})`;

async function openRunPage(browser: Browser, url: string, token: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(60_000);
  await context.addInitScript({ content: `sessionStorage.setItem('teamstage.token', ${JSON.stringify(token)}); ${WATCH_FOR_FIRST_CHANGE}` });
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('section[aria-label="Planned changes"] li details summary').first().waitFor();
  return { page, close: () => context.close() };
}

export async function largePlanScenario(context: { server: ServerProcess; seeded: Seeded; loads: number; rows: Row[]; skipWithoutChromium: boolean }): Promise<void> {
  const { server, seeded, loads, rows } = context;
  const row = { scenario: LARGE_PLAN_SCENARIO, dialect: 'sqlite', target: 'first change p99 ≤ 1,000 ms; expand p99 ≤ 100 ms' };
  if (!fs.existsSync(CHROMIUM)) {
    if (context.skipWithoutChromium) return;
    rows.push({ ...row, measured: `not measured: ${CHROMIUM} is not installed`, baseline: '-', ratio: '-', met: false });
    return;
  }
  const http = new HttpClient(server.url);
  const call = strictCall(http);
  const owner = { ownerToken: seeded.ownerToken, organization: seeded.organization };
  const planJson = largePlan(CHANGES);
  const workspaceName = `bench-large-plan-${process.pid}-${Date.now()}`;
  const { runId, planId } = await plannedRun(call, server.url, owner, workspaceName, planJson);
  await reportPlan(call, seeded.ownerToken, planId);
  await waitUntil(async () => (await call(seeded.ownerToken, 'GET', `/runs/${runId}`, undefined, 200)).data.attributes.status === 'planned', 60_000, 'the large-plan run was not planned');
  await http.close();
  const runUrl = `${server.url}/app/${seeded.organization}/workspaces/${workspaceName}/runs/${runId}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
  const times = { firstChange: [] as number[], fetchParse: [] as number[], expand: [] as number[], bareExpand: [] as number[] };
  try {
    // One discarded load, then `loads` measured ones, each in a fresh context (empty cache).
    for (let i = 0; i <= loads; i++) {
      const { page, close } = await openRunPage(browser, runUrl, seeded.ownerToken);
      try {
        const firstChangeAt = (await page.evaluate('window.firstChangeAt')) as number | undefined;
        if (firstChangeAt === undefined) throw new Error('the first planned change was never seen appearing');
        const fetchParse = (await page.evaluate(`${FETCH_AND_PARSE}(${JSON.stringify(`/api/v2/plans/${planId}/json-output`)})`)) as number;
        const expanded = (await page.evaluate(EXPAND_FIRST_CHANGE)) as { ms: number; html: string };
        const bare = (await page.evaluate(`${EXPAND_BARE}(${JSON.stringify(expanded.html)})`)) as number;
        if (i === 0) continue;
        times.firstChange.push(firstChangeAt);
        times.fetchParse.push(fetchParse);
        times.expand.push(expanded.ms);
        times.bareExpand.push(bare);
      } finally {
        await close();
      }
    }
  } finally {
    await browser.close();
  }
  const p = (values: number[]) => percentiles(values);
  const [first, fetched, expand, bare] = [p(times.firstChange), p(times.fetchParse), p(times.expand), p(times.bareExpand)];
  const mb = fmt(Buffer.byteLength(planJson) / 1e6, 1);
  rows.push({
    ...row,
    measured:
      `first change shown p50 ${fmt(first.p50, 1)} ms, p99 ${fmt(first.p99, 1)} ms from navigation start; a change expanded p50 ${fmt(expand.p50, 1)} ms, ` +
      `p99 ${fmt(expand.p99, 1)} ms to painted; over ${fmt(loads)} loads (chromium ${browser.version()}, ${fmt(CHANGES)} changes, plan JSON ${mb} MB)`,
    baseline:
      `the plan JSON fetched and parsed in the same page p50 ${fmt(fetched.p50, 1)} ms, p99 ${fmt(fetched.p99, 1)} ms; ` +
      `a bare <details> inserting the same table p50 ${fmt(bare.p50, 1)} ms, p99 ${fmt(bare.p99, 1)} ms`,
    ratio: `${fmt(first.p50 / Math.max(fetched.p50, 0.1), 1)}× fetch+parse; ${fmt(expand.p50 / Math.max(bare.p50, 0.1), 1)}× the bare expand (p50)`,
    met: first.p99 <= 1000 && expand.p99 <= 100,
  });
}
