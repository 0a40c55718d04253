/**
 * Issue 29's acceptance: a crafted policy (an unbounded range, a huge answer, a 10⁵×10⁵ comprehension; a recursive
 * one is refused when it is uploaded) cannot delay another tenant's request by more than 100 ms. A real server
 * process evaluates one organization's crafted policies on real plans, with every OPA slot kept busy, while
 * another organization reads a team; its p99 is compared with the same requests with nothing evaluated, before
 * and after. Every crafted evaluation ends `errored` with the bound it hit.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { opaPath } from '../helpers/opa.js';
import { measurePolicyIsolation, percentile } from '../helpers/policy-isolation.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const SLOTS = 2;

describe('crafted policies do not delay another tenant (real server process, SQLite)', { timeout: 300_000 }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-policy-isolation-'));
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("another organization's GET /teams/:id p99 rises by at most 100 ms while every OPA slot runs a crafted policy", async () => {
    const siteToken = randomBytes(24).toString('hex');
    server = await startServerProcess({
      DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`,
      TEAMSTAGE_DATA_DIR: dataDir,
      TEAMSTAGE_SITE_TOKEN: siteToken,
      TEAMSTAGE_RATE_LIMIT: '0',
      TEAMSTAGE_JOB_POLL: '0.2',
      TEAMSTAGE_OPA_PATH: opaPath(),
      TEAMSTAGE_POLICY_TIMEOUT: '2',
      TEAMSTAGE_POLICY_CONCURRENCY: String(SLOTS),
      // The worst case for the other tenant's requests: the attacker may run every slot (by default, half).
      TEAMSTAGE_POLICY_PER_ORGANIZATION: String(SLOTS),
    }, { readyTimeoutMs: 120_000 });
    // 6 runs × 3 policies × up to 2 s over 2 slots: about 18 s of full slots, more than the 8 s window.
    const figures = await measurePolicyIsolation({ url: server.url, serverPid: server.pid, siteToken, slots: SLOTS, runs: 6, windowMs: 8000, suffix: randomBytes(3).toString('hex') });
    const alone = percentile(figures.alone, 99);
    const during = percentile(figures.during, 99);
    console.log(
      `isolation: GET /teams/:id alone p50 ${percentile(figures.alone, 50).toFixed(1)} ms p99 ${alone.toFixed(1)} ms (${figures.alone.length}); ` +
        `during p50 ${percentile(figures.during, 50).toFixed(1)} ms p99 ${during.toFixed(1)} ms max ${Math.max(...figures.during).toFixed(1)} ms (${figures.during.length}); ` +
        `slots full ${(figures.saturated * 100).toFixed(0)}% of ${figures.looks} looks; recursion: ${figures.recursion}; crafted: ${[...new Set(figures.outcomes.map((o) => `${o.policy} ${o.status}: ${o.reason}`))].join(' | ')}`,
    );
    assert.match(figures.recursion, /^422 the policy does not compile: .* is recursive/);
    assert.ok(figures.saturated >= 0.8, `the slots were full only ${(figures.saturated * 100).toFixed(0)}% of the window: not the worst case`);
    assert.ok(figures.during.length >= 100, `${figures.during.length} requests during`);
    assert.ok(during - alone <= 100, `p99 ${during.toFixed(1)} ms during against ${alone.toFixed(1)} ms alone`);
    // Each crafted policy hit a bound: errored, with why.
    assert.equal(figures.outcomes.length, 6 * 3, JSON.stringify(figures.outcomes));
    for (const outcome of figures.outcomes) {
      assert.equal(outcome.status, 'errored', JSON.stringify(outcome));
      assert.match(outcome.reason, /longer than 2000 ms|more than \d+ bytes|memory|timed out|deadline/, JSON.stringify(outcome));
    }
  });
});
