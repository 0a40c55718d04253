/**
 * Asking OPA ahead at start (issue 39, start to ready): `serve` starts probeOpaAhead before it opens the database,
 * so OPA's version and capabilities are asked without blocking the event loop, and the engine's synchronous
 * findOpa and capabilitiesFileFor then answer from what was asked, running nothing more.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { capabilitiesFileFor } from '../../src/policies/opa-capabilities.js';
import { findOpa, probeOpaAhead } from '../../src/policies/opa-probe.js';

/** A stand-in `opa` that notes each command it runs, and takes a second to answer (a slow start of a big binary). */
function fakeOpa(): { path: string; runs: () => string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'opa-probe-test-'));
  const log = path.join(dir, 'runs');
  writeFileSync(log, '');
  const capabilities = JSON.stringify({ builtins: [{ name: 'count' }, { name: 'http.send', nondeterministic: true }] });
  const script = `#!/bin/sh\necho "$1" >> '${log}'\nsleep 1\ncase "$1" in\n  version) echo 'Version: 9.9.9' ;;\n  capabilities) echo '${capabilities}' ;;\nesac\n`;
  const file = path.join(dir, 'opa');
  writeFileSync(file, script);
  chmodSync(file, 0o700);
  return { path: file, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('asking OPA ahead at start', { timeout: 30_000 }, () => {
  it('asks without blocking the event loop, and the engine then runs no command of its own', async () => {
    const opa = fakeOpa();
    let turned = false;
    setImmediate(() => (turned = true));
    await probeOpaAhead(opa.path);
    // Synchronous commands would have held the loop for two seconds and the probe would have resolved first.
    assert.equal(turned, true, 'the event loop turned while OPA answered');
    assert.deepEqual(opa.runs(), ['version', 'capabilities']);
    assert.deepEqual(findOpa(opa.path), { path: opa.path, version: '9.9.9' });
    assert.deepEqual(capabilitiesFileFor(opa.path).removed, ['http.send']);
    assert.deepEqual(opa.runs(), ['version', 'capabilities'], 'nothing asked twice');
  });

  it('remembers a binary that is not there, for the engine to say why', async () => {
    await probeOpaAhead('/nonexistent/opa');
    assert.deepEqual(findOpa('/nonexistent/opa'), { path: undefined, reason: 'TEAMSTAGE_OPA_PATH=/nonexistent/opa: not found' });
  });
});
