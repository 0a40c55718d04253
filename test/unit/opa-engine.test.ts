/**
 * The policy engine against the real OPA (issue 29): compile checks with OPA's own message, Rego v1 and v0,
 * and the bounds of one evaluation (time, memory, output), each an `errored` answer with its reason, while
 * the event loop stays free.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { OpaEngine, findOpa } from '../../src/policies/opa-engine.js';
import { watchEventLoopTurns } from '../helpers/event-loop-turns.js';
import { opaPath } from '../helpers/opa.js';

const found = findOpa(opaPath());
assert.ok(found.path, 'OPA is found');
const limits = { timeoutMs: 2000, memoryBytes: 256 * 1024 * 1024, maxOutputBytes: 64 * 1024, concurrency: 2, perOrganization: 2 };
const engine = new OpaEngine(found.path, found.version, limits);
/** For what is not about the time bound: a loaded CI machine took over 2 s to compile a one-line policy. */
const unhurried = new OpaEngine(found.path, found.version, { ...limits, timeoutMs: 30_000 });
// The bounds hold on both of the engine's paths: Wasm in a worker thread, and the `opa eval` process it falls back to.
const wasmEngine = engine;
const processEngine = new OpaEngine(found.path, found.version, { ...limits, wasm: false });
after(async () => {
  await engine.close();
  await unhurried.close();
  await processEngine.close();
});
const input = path.join(mkdtempSync(path.join(tmpdir(), 'opa-engine-test-')), 'input.json');
writeFileSync(input, JSON.stringify({ plan: { resource_changes: [{ address: 'a' }] }, run: {} }));

describe('OPA engine', { timeout: 60_000 }, () => {
  it('checks Rego v1 and v0, and gives OPA\'s own message for what does not compile', async () => {
    assert.deepEqual(await unhurried.check('package a\nimport rego.v1\ndeny contains "x" if { false }\n', 'org'), { ok: true, regoVersion: 'v1' });
    assert.deepEqual(await unhurried.check('package example rule["not allowed"] { false }', 'org'), { ok: true, regoVersion: 'v0' });
    const broken = await unhurried.check('package a\ndeny contains if {', 'org');
    assert.equal(broken.ok, false);
    assert.match(!broken.ok ? broken.message : '', /^\d+:\d+: /);
  });

  it('says so when compiling a policy needs more than the memory bound (not a Go runtime dump)', async () => {
    const rules = Array.from({ length: 3600 }, (_, i) => `deny contains "rule ${i}" if { some c in input.plan.resource_changes; c.type == "aws_instance_${i}"; c.change.after.tags.owner == "team-${i}" }`);
    const rego = `package big\nimport rego.v1\n${rules.join('\n')}\n`;
    assert.ok(rego.length > 450 * 1024, `${rego.length} bytes`);
    const small = new OpaEngine(found.path!, found.version, { ...limits, memoryBytes: 128 * 1024 * 1024, timeoutMs: 20_000 });
    assert.deepEqual(await small.check(rego, 'org'), { ok: false, problem: 'memory', message: 'compiling the policy needed more than 128 MiB (TEAMSTAGE_POLICY_MEMORY_MB)' });
    // Within the default memory bound it compiles (in about a second; a loaded machine may take several).
    const roomy = new OpaEngine(found.path!, found.version, { ...limits, memoryBytes: 512 * 1024 * 1024, timeoutMs: 30_000 });
    assert.deepEqual(await roomy.check(rego, 'org'), { ok: true, regoVersion: 'v1' }, 'within the bound it compiles');
  });

  it('answers the query\'s value, print() output, and undefined', async () => {
    const rego = 'package a\nimport rego.v1\ndeny contains c.address if { some c in input.plan.resource_changes; print("saw", c.address) }\n';
    const answer = await engine.evaluate({ rego, regoVersion: 'v1', query: 'data.a.deny' }, input, 'org');
    assert.deepEqual(answer, { ok: true, defined: true, value: ['a'], prints: ['saw a'] });
    assert.deepEqual(await engine.evaluate({ rego, regoVersion: 'v1', query: 'data.a.nothing' }, input, 'org'), { ok: true, defined: false, prints: [] });
  });

  for (const path of ['Wasm', 'process'] as const) it(`stops an evaluation over its time, memory or output bound with the reason, and the event loop stays free (${path})`, async () => {
    const engine = path === 'Wasm' ? wasmEngine : processEngine;
    // The event loop's longest turn while the engine works (event-loop-turns.ts).
    const turns = watchEventLoopTurns();
    const started = Date.now();
    const slow = await engine.evaluate({ rego: 'package a\nimport rego.v1\nn := count([x | some x in numbers.range(1, 100000000)])\n', regoVersion: 'v1', query: 'data.a.n' }, input, 'org');
    const longestTurn = turns.stop();
    assert.equal(slow.ok, false);
    assert.match(!slow.ok ? slow.reason : '', /timed out|longer than|MiB/);
    assert.ok(Date.now() - started < limits.timeoutMs + 3000, 'stopped near its bound');
    const tookMs = Date.now() - started;
    assert.ok(longestTurn < tookMs / 4, `the event loop stalled ${Math.round(longestTurn)} ms of ${tookMs} ms`);

    // With time to spare (a loaded machine's OPA process may take seconds to print 200,000 values): the answer's bound is what stops it.
    const roomy = new OpaEngine(found.path!, found.version, { ...limits, wasm: path === 'Wasm', timeoutMs: 30_000 });
    const huge = await roomy.evaluate({ rego: 'package a\nimport rego.v1\nbig := [x | some x in numbers.range(1, 200000)]\n', regoVersion: 'v1', query: 'data.a.big' }, input, 'org');
    await roomy.close();
    assert.deepEqual(huge, { ok: false, reason: `the evaluation answered more than ${limits.maxOutputBytes} bytes and was stopped` });

    // The process's memory cap (`ulimit -d`); the Wasm maximum has its own test (opa-wasm-engine.test.ts).
    if (path === 'Wasm') return;

    const small = new OpaEngine(found.path!, found.version, { ...limits, wasm: false, memoryBytes: 160 * 1024 * 1024, timeoutMs: 20_000 });
    const hungry = await small.evaluate({ rego: 'package a\nimport rego.v1\nbig := count([sprintf("%v-padding-padding", [x]) | some x in numbers.range(1, 20000000)])\n', regoVersion: 'v1', query: 'data.a.big' }, input, 'org');
    await small.close();
    assert.deepEqual(hungry, { ok: false, reason: 'the evaluation needed more than 160 MiB and was stopped' });
  });
});
