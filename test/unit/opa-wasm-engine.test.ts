/**
 * The engine's Wasm path (issue 39): a policy compiled once per node by `opa build -t wasm` and evaluated in a
 * worker thread gives the answer OPA's own process gives, for every kind of policy (what Wasm cannot answer
 * exactly goes to the process), and keeps the bounds of an evaluation: the time limit ends the thread, the
 * Wasm memory stops at its maximum, the answer at its size bound, and a removed built-in never runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { OpaEngine, findOpa, unavailableBuiltinReason, type RegoVersion } from '../../src/policies/opa-engine.js';
import { watchEventLoopTurns } from '../helpers/event-loop-turns.js';
import { opaPath } from '../helpers/opa.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/terraform-plans');
const found = findOpa(opaPath());
assert.ok(found.path, 'OPA is found');
const limits = { timeoutMs: 3000, memoryBytes: 256 * 1024 * 1024, maxOutputBytes: 64 * 1024, concurrency: 2, perOrganization: 2 };
const inWasm = new OpaEngine(found.path, found.version, limits);
const byProcess = new OpaEngine(found.path, found.version, { ...limits, wasm: false });
const scratch = mkdtempSync(path.join(tmpdir(), 'opa-wasm-engine-test-'));
after(() => inWasm.close());

function inputFile(input: unknown): string {
  const file = path.join(scratch, `input-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(input));
  return file;
}

const example = (name: string) => ({ rego: readFileSync(path.join(ROOT, 'examples/policies', `${name}.rego`), 'utf8'), regoVersion: 'v1' as RegoVersion, query: `data.terraform.policies.${name}.deny` });
const v1 = (rego: string, query: string) => ({ rego: `${rego.split('\n')[0]}\nimport rego.v1\n${rego.split('\n').slice(1).join('\n')}`, regoVersion: 'v1' as RegoVersion, query });
// As text, so that the order of keys counts too; OPA names the file it read in some messages: each engine's own scratch file.
const comparable = (answer: unknown) => JSON.stringify(answer).replace(/\/tmp\/teamstage-opa-[^/]+\//g, '<scratch>/');

describe('the engine\'s Wasm path', { timeout: 180_000 }, () => {
  it('answers every policy exactly as OPA\'s process does: in Wasm where it can, by the process where not', async () => {
    const plans = readdirSync(FIXTURES).filter((name) => existsSync(path.join(FIXTURES, name, 'plan.json'))).map((name) => JSON.parse(readFileSync(path.join(FIXTURES, name, 'plan.json'), 'utf8')));
    const breaking = {
      resource_changes: [
        { address: 'aws_security_group.web', type: 'aws_security_group', change: { actions: ['create'], after: { ingress: [{ cidr_blocks: ['0.0.0.0/0'], from_port: 22, to_port: 22 }], tags: { owner: 'a' } } } },
        { address: 'aws_db_instance.main', type: 'aws_db_instance', change: { actions: ['delete', 'create'], after: {} } },
      ],
    };
    const inputs = [...plans, breaking].map((plan) => inputFile({ plan, run: { is_destroy: false }, a: 1, b: 2 }));
    const policies = [
      example('no_public_ingress'), example('required_tags'), example('no_destroy_protected'),
      // Rego v0, as HCP's examples and go-tfe's tests write it.
      { rego: 'package legacy\ndeny[msg] { msg := input.plan.resource_changes[_].address }\n', regoVersion: 'v0' as RegoVersion, query: 'data.legacy.deny' },
      v1('package conflict\nx := input.a if true\nx := input.b if true\n', 'data.conflict.x'),
      v1('package undefined\ny := 1\n', 'data.undefined.nothing'),
      v1('package printing\ndeny contains c.address if { some c in input.plan.resource_changes; print("saw", c.address) }\n', 'data.printing.deny'),
      // Sets come out sorted in Rego's order of values, objects by key, as OPA prints them.
      v1('package mixed\nx contains y if { some y in ["b", "a", 3, 1.5, null, true, {"z": 1, "a": [1, {"q", "p"}]}, {"a": 0}, set(), {"k": "v\\"\\u00e9\\n"}, [2], [1, 3], input.a] }\n', 'data.mixed.x'),
      v1('package objects\ndeny contains {"address": c.address, "why": "it changes", "actions": {a | some a in c.change.actions}} if { some c in input.plan.resource_changes }\n', 'data.objects.deny'),
      v1('package numbers\ndeny := [n | some c in input.plan.resource_changes; n := count(c.address) * 1.5]\n', 'data.numbers.deny'),
    ];
    let compared = 0;
    for (const input of inputs) {
      for (const policy of policies) {
        const [wasm, process] = [await inWasm.evaluate(policy, input, 'org'), await byProcess.evaluate(policy, input, 'org')];
        assert.equal(comparable(wasm), comparable(process), `${policy.query} on ${input}`);
        compared += 1;
      }
    }
    assert.ok(compared >= 80, `${compared} answers compared`);
    assert.ok(inWasm.counts.wasm >= compared / 2, `most answered in Wasm: ${JSON.stringify(inWasm.counts)}`);
    assert.ok(inWasm.counts.opa > 0, `some by the process (print, conflict, messages built with sprintf): ${JSON.stringify(inWasm.counts)}`);
    assert.equal(byProcess.counts.wasm, 0);
  });

  it('compiles a policy once per node, by its content', async () => {
    const input = inputFile({ plan: { resource_changes: [{ address: 'a' }] } });
    const policy = v1('package once\ndeny contains c.address if { some c in input.plan.resource_changes }\n', 'data.once.deny');
    const before = { ...inWasm.counts };
    for (let i = 0; i < 3; i++) assert.deepEqual(await inWasm.evaluate(policy, input, 'org'), { ok: true, defined: true, value: ['a'], prints: [] });
    assert.equal(inWasm.counts.builds - before.builds, 1, 'built once');
    assert.equal(inWasm.counts.wasm - before.wasm, 3, 'answered in Wasm each time');
    await inWasm.evaluate({ ...policy, rego: `${policy.rego}# changed\n` }, input, 'org');
    assert.equal(inWasm.counts.builds - before.builds, 2, 'a changed text is built again');
  });

  it('stops an evaluation at its time limit by ending its thread, the event loop free, and the next evaluation answers', async () => {
    // A 24 MiB input: its Wasm budget (wasmMemoryBytes: 64 MiB and 8 times the input) is then the whole 256 MiB bound,
    // more than this loop's allocations reach within the limit, so it is the time limit that stops it in Wasm.
    const input = inputFile({ plan: null, padding: 'x'.repeat(24 * 1024 * 1024) });
    const loop = v1('package loop\nr := numbers.range(1, 3000)\nbad if { some a in r; some b in r; some c in r; a + b + c < 0 }\n', 'data.loop.bad');
    await inWasm.evaluate(v1('package warm\nx := 1\n', 'data.warm.x'), input, 'org');
    const before = { ...inWasm.counts };
    // The event loop's longest turn while Wasm works (event-loop-turns.ts).
    const turns = watchEventLoopTurns();
    const started = Date.now();
    const answer = await inWasm.evaluate(loop, input, 'org');
    const longestTurn = turns.stop();
    const took = Date.now() - started;
    assert.deepEqual(answer, { ok: false, reason: `the evaluation took longer than ${limits.timeoutMs} ms and was stopped` });
    assert.equal(inWasm.counts.wasm - before.wasm, 1, 'stopped in Wasm, not handed to the process');
    // Unstopped, this loop would run for hours: the bound only leaves room for its compile on a loaded machine.
    assert.ok(took < limits.timeoutMs + 30_000, `stopped near its bound (${took} ms, with its compile)`);
    assert.ok(longestTurn < took / 4, `the event loop stalled ${Math.round(longestTurn)} ms of ${took} ms`);
    assert.deepEqual(await inWasm.evaluate(v1('package after\nx := 2\n', 'data.after.x'), input, 'org'), { ok: true, defined: true, value: 2, prints: [] });
  });

  it('stops an evaluation at the operator\'s memory bound and at the answer bound; past the Wasm budget OPA\'s process answers', async () => {
    const input = inputFile({ plan: null });
    const huge = await inWasm.evaluate(v1('package huge\nbig := [x | some x in numbers.range(1, 200000)]\n', 'data.huge.big'), input, 'org');
    assert.deepEqual(huge, { ok: false, reason: `the evaluation answered more than ${limits.maxOutputBytes} bytes and was stopped` });
    const small = new OpaEngine(found.path!, found.version, { ...limits, memoryBytes: 128 * 1024 * 1024, timeoutMs: 60_000 });
    try {
      const hungry = await small.evaluate(v1('package hungry\nn := count([x | some x in numbers.range(1, 30000000)])\n', 'data.hungry.n'), input, 'org');
      assert.deepEqual(hungry, { ok: false, reason: 'the evaluation needed more than 128 MiB and was stopped' });
      assert.deepEqual(small.counts, { wasm: 0, opa: 1, builds: 1 }, 'past the Wasm budget, OPA\'s process met the bound');
      // Pairs of values: a few MiB in OPA, hundreds in Wasm, whose allocator keeps every intermediate value. It
      // passes, answered by the process once Wasm passed its budget (wasmMemoryBytes), as OPA alone answered it.
      const pairs = v1('package pairs\ndeny := [1 | some i in numbers.range(1, 1500); some j in numbers.range(1, 1500); i * j < 0]\n', 'data.pairs.deny');
      assert.deepEqual(await small.evaluate(pairs, input, 'org'), { ok: true, defined: true, value: [], prints: [] });
      assert.deepEqual(small.counts, { wasm: 0, opa: 2, builds: 2 });
    } finally {
      await small.close();
    }
  });

  it('never runs a removed built-in: opa build refuses it, and OPA\'s process answers with why', async () => {
    const input = inputFile({ plan: null });
    const before = { ...inWasm.counts };
    const answer = await inWasm.evaluate(v1('package reach\nx := http.send({"method": "GET", "url": "http://127.0.0.1:9"})\n', 'data.reach.x'), input, 'org');
    assert.deepEqual(answer, { ok: false, reason: unavailableBuiltinReason('http.send') });
    assert.equal(inWasm.counts.wasm - before.wasm, 0);
  });
});
