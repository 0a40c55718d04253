/**
 * The console's promise (issue 17: "a page interactive within 1 s on this machine") as a bench row, not a
 * timed test: Debian's chromium, driven by playwright-core, opens `/app/` of a compiled Teamstage server
 * with a cold cache, again and again, and times navigation start → the sign-in form interactive. Beside
 * it, the limit: a bare node:http process serving a minimal HTML page with the same form.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../test/helpers/browser.js';
import type { ServerProcess } from '../test/helpers/server-process.js';
import { startBaselineProcess } from './baseline-process.js';
import { percentiles } from './measure.js';
import { fmt } from './row-text.js';
import type { Row } from './row.js';

export const CONSOLE_SCENARIO = 'console: navigation start → sign-in form interactive, cold cache';

/** The least a sign-in page can be: the console's field and button, no style, no script. */
const STATIC_SIGN_IN = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body><main><h1>Sign in</h1><form><label for="token">API token</label><input id="token" name="token" type="password" required><button type="submit">Sign in</button></form></main></body></html>`;

/**
 * Runs in the page before its own scripts: notes when a field labelled "API token" first exists. (Plain
 * JavaScript text: a function from this file would carry tsx's `__name` helper, which the page lacks.)
 */
const WATCH_FOR_SIGN_IN_FIELD = `(() => {
  const observer = new MutationObserver(() => {
    if (![...document.querySelectorAll('label')].some((label) => label.textContent === 'API token' && label.control)) return;
    window.signInFieldAt = performance.now();
    observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;

/**
 * The form is interactive once it exists and the page's scripts have run, i.e. DOMContentLoaded has ended
 * (the console's module script renders the form, handlers included, before that): the later of the two,
 * in ms since navigation start.
 */
const INTERACTIVE_AT = `(async () => {
  const navigation = () => performance.getEntriesByType('navigation')[0];
  while (!(navigation()?.domContentLoadedEventEnd > 0)) await new Promise((resolve) => setTimeout(resolve, 5));
  return window.signInFieldAt === undefined ? null : Math.max(window.signInFieldAt, navigation().domContentLoadedEventEnd);
})()`;

/** One load in a fresh browser context (its own empty cache and no open connection): ms from navigation start. */
async function timeToInteractive(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext();
  try {
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.addInitScript({ content: WATCH_FOR_SIGN_IN_FIELD });
    await page.goto(url);
    await page.getByLabel('API token').waitFor();
    const interactiveAt = (await page.evaluate(INTERACTIVE_AT)) as number | null;
    if (interactiveAt === null) throw new Error(`${url}: the sign-in field was never seen appearing`);
    return interactiveAt;
  } finally {
    await context.close();
  }
}

/**
 * `loads` cold loads of each page, alternating (after one discarded load of each), so that the machine's
 * noise falls on both alike. Without chromium the row says so and is not met, unless `skipWithoutChromium`.
 */
export async function consoleScenario(context: { server: ServerProcess; loads: number; rows: Row[]; skipWithoutChromium: boolean }): Promise<void> {
  const { server, loads, rows } = context;
  const row = { scenario: CONSOLE_SCENARIO, dialect: 'sqlite', target: 'p99 ≤ 1,000 ms (issue 17)' };
  if (!fs.existsSync(CHROMIUM)) {
    if (context.skipWithoutChromium) {
      console.error(`[bench] ${CONSOLE_SCENARIO}: skipped, ${CHROMIUM} is not installed`);
      return;
    }
    rows.push({ ...row, measured: `not measured: ${CHROMIUM} is not installed (apt-get install -y chromium)`, baseline: '-', ratio: '-', met: false });
    return;
  }
  const limit = await startBaselineProcess('static', { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(STATIC_SIGN_IN) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
  try {
    const sides = {
      console: { url: `${server.url}/app/`, cpuMs: () => server.cpuMs(), times: [] as number[], cpu: 0 },
      limit: { url: `${limit.url}/`, cpuMs: () => limit.cpuMs(), times: [] as number[], cpu: 0 },
    };
    for (const side of Object.values(sides)) await timeToInteractive(browser, side.url);
    for (let i = 0; i < loads; i++) {
      for (const side of Object.values(sides)) {
        const before = side.cpuMs();
        side.times.push(await timeToInteractive(browser, side.url));
        side.cpu += side.cpuMs() - before;
      }
    }
    const summary = (side: typeof sides.console) => ({ ...percentiles(side.times), cpuMs: side.cpu / loads });
    const target = summary(sides.console);
    const bare = summary(sides.limit);
    const text = (s: typeof target) => `p50 ${fmt(s.p50, 1)} ms, p99 ${fmt(s.p99, 1)} ms over ${fmt(loads)} loads; CPU per load: server ${fmt(s.cpuMs, 1)} ms`;
    rows.push({
      ...row,
      measured: `${text(target)} (chromium ${browser.version()}, /app/ of the compiled server: HTML, script and stylesheet)`,
      baseline: `${text(bare)} (bare node:http serving a minimal HTML page with the same form)`,
      ratio: `${fmt(target.p50 / Math.max(bare.p50, 0.1), 1)}× the static page (p50)`,
      met: target.p99 <= 1000,
    });
  } finally {
    await browser.close();
    await limit.close();
  }
}
