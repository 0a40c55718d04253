import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's chromium (installed by .ci/run with apt), driven by playwright-core. No browser is ever
 * downloaded: playwright-core ships none, and the executable is the system one.
 */
export const CHROMIUM = process.env.TEAMSTAGE_CHROMIUM ?? '/usr/bin/chromium';

/** Headless and quiet: no sandbox (CI runs as root), no GPU, no background traffic. The bench launches with them too. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab: its own sessionStorage, so each tab is a separate sign-in. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A fresh browser with a fresh profile directory (removed on close). */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 800 },
    timeout: 60_000,
  });
  context.setDefaultTimeout(15_000);
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page (injected through the debugging protocol, which the page's Content-Security-Policy
 * does not govern) and fails on any serious or critical violation, naming each rule and element.
 */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  const injected = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  if (!injected) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target })),
    }));
  });
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    serious.map((violation) => `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    [],
    `accessibility violations on ${where}`,
  );
}

/** At phone width (360 px) nothing makes the page scroll sideways; names the widest elements if it does. */
export async function assertFitsPhoneWidth(page: Page, where: string): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 360, height: 740 });
  const wide = await page.evaluate(() =>
    document.documentElement.scrollWidth > window.innerWidth
      ? [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .slice(0, 5)
          .map((element) => `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} (${Math.round(element.getBoundingClientRect().right)} px)`)
      : [],
  );
  assert.deepEqual(wide, [], `${where} scrolls sideways at 360 px wide`);
  await assertAccessible(page, `${where} at phone width`);
  if (before) await page.setViewportSize(before);
}

/** Opens the console and signs in by pasting `token`, as a person would. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/app/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * The README's screenshots are taken by the browser tests only when `scripts/console-screenshots.mjs` runs
 * them (it sets TEAMSTAGE_SCREENSHOTS to docs/screenshots): `npm test` never rewrites tracked files.
 */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const dir = process.env.TEAMSTAGE_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: options.fullPage ?? false });
}
