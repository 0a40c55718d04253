import { randomBytes } from 'node:crypto';
import { measurePolicyIsolation, percentile } from '../test/helpers/policy-isolation.js';
import { fmt } from './row-text.js';
import { benchOpa, startPolicyServer } from './policy-server.js';
import { extraScenarios, type ScenarioContext } from './scenarios.js';

export const POLICY_ISOLATION = 'policy isolation';
const SLOTS = 2;

/**
 * Issue 29's isolation target: another organization's GET /teams/:id while one organization's crafted policies
 * keep every OPA slot of the node busy (the engine's limit, saturated: the row says how much of the window it
 * was), against the same requests with nothing evaluated, before and after, on a server of its own with OPA
 * (policy-server.ts).
 */
async function policyIsolation(context: ScenarioContext): Promise<void> {
  if (context.dialect !== 'sqlite') return;
  const { server, siteToken, close } = await startPolicyServer(benchOpa(POLICY_ISOLATION).path, { timeoutSeconds: 2, slots: SLOTS });
  try {
    // Enough runs (3 crafted policies each, up to 2 s apiece, 2 at a time) to keep the slots full past the window.
    const windowMs = context.settings.duration * 2000;
    const figures = await measurePolicyIsolation({ url: server.url, serverPid: server.pid, siteToken, slots: SLOTS, runs: context.settings.duration * 2 + 2, windowMs, suffix: randomBytes(3).toString('hex') });
    const alone = percentile(figures.alone, 99);
    const during = percentile(figures.during, 99);
    const bounds = [...new Set(figures.outcomes.map((outcome) => `${outcome.status}: ${outcome.reason.replace(/ and was stopped$/, '')}`))].join('; ');
    context.rows.push({
      scenario: `${POLICY_ISOLATION}: another organization's GET /teams/:id while crafted policies (unbounded range, 8 MB answer, 10⁵×10⁵ comprehension) fill every OPA slot`,
      dialect: context.dialect,
      measured:
        `p50 ${fmt(percentile(figures.during, 50), 1)} ms, p99 ${fmt(during, 1)} ms, max ${fmt(Math.max(...figures.during), 1)} ms (${fmt(figures.during.length)} requests); ` +
        `OPA slots full ${fmt(figures.saturated * 100)}% of the window (${SLOTS} of ${SLOTS}, TEAMSTAGE_POLICY_TIMEOUT=2); crafted outcomes: ${bounds}; a recursive policy: ${/^422 .* is recursive/.test(figures.recursion) ? 'refused at upload (422, OPA: "is recursive")' : figures.recursion}`,
      baseline: `p50 ${fmt(percentile(figures.alone, 50), 1)} ms, p99 ${fmt(alone, 1)} ms (${fmt(figures.alone.length)} requests, nothing evaluated, before and after)`,
      ratio: `p99 ${during >= alone ? '+' : '−'}${fmt(Math.abs(during - alone), 1)} ms`,
      target: '≤ 100 ms added to p99, with the slots full ≥ 80% of the window',
      met: during - alone <= 100 && figures.saturated >= 0.8 && figures.outcomes.length > 0 && figures.outcomes.every((outcome) => outcome.status === 'errored'),
    });
  } finally {
    await close();
  }
}

extraScenarios.push({ name: POLICY_ISOLATION, run: policyIsolation });
