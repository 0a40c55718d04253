import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

/** The run page's h1: the run's message (its first line), as the console heads a run. */
export function runHeading(page: Page, message: string): Locator {
  return page.getByRole('heading', { level: 1, name: message, exact: true });
}

/** Waits for the run page of `runId`: headed by its message, its id second (just under the heading). */
export async function waitForRunHeading(page: Page, message: string, runId: string): Promise<void> {
  await runHeading(page, message).waitFor();
  const id = page.getByTestId('run-id');
  await id.filter({ hasText: runId }).waitFor();
  assert.equal(await id.innerText(), `Run ${runId}`);
  // The id follows the heading directly: second, not somewhere down the page.
  assert.equal(await page.evaluate(() => document.querySelector('h1')?.nextElementSibling?.getAttribute('data-testid')), 'run-id');
  assert.equal(await page.title(), `${message} · Teamstage`);
}
