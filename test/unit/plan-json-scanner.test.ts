/**
 * The bounds of the streaming plan JSON check (plan-json-scanner.ts) and its worker (plan-json-checker.ts):
 * depth and value count are refused exactly past their limits, a refusal stops the read, a huge string
 * costs no memory of its size, and the worker gives the same answers off the event loop.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PlanJsonChecker } from '../../src/runs/plan-json-checker.js';
import { checkPlanJsonBytes, PlanJsonScanner, type PlanJsonCheck } from '../../src/runs/plan-json-scanner.js';
import { watchEventLoopTurns } from '../helpers/event-loop-turns.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/terraform-plans');
const plan = (inner: string) => Buffer.from(`{"format_version":"1.2","x":${inner}}`);
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const problemKind = (checked: PlanJsonCheck) => (checked.ok ? 'ok' : checked.problem.kind);

describe('plan JSON bounds', () => {
  it('depth: the limit passes, one level more is refused', () => {
    // The document's own object is level 1.
    assert.equal(problemKind(checkPlanJsonBytes(plan(nested(9)), { maxDepth: 10, maxValues: 1000 })), 'ok');
    const refused = checkPlanJsonBytes(plan(nested(10)), { maxDepth: 10, maxValues: 1000 });
    assert.deepEqual(refused, { ok: false, problem: { kind: 'too-deep', limit: 10 } });
  });

  it('value count: every object, array, string, number and literal counts one', () => {
    // {} 1, "1.2" 2, [ 3, "a" 4, 1 5, true 6, null 7, {} 8
    const body = Buffer.from('{"format_version":"1.2","x":["a",1,true,null,{}]}');
    assert.equal(problemKind(checkPlanJsonBytes(body, { maxDepth: 10, maxValues: 8 })), 'ok');
    assert.deepEqual(checkPlanJsonBytes(body, { maxDepth: 10, maxValues: 7 }), { ok: false, problem: { kind: 'too-many-values', limit: 7 } });
  });

  it('a refusal ends the read: what follows is not looked at (not even whether it is JSON)', () => {
    const scanner = new PlanJsonScanner({ maxDepth: 4, maxValues: 1000 });
    scanner.write(Buffer.from(`{"format_version":"1.2","x":${'['.repeat(10)}`));
    assert.equal(scanner.done, true);
    scanner.write(Buffer.from('this is not JSON'));
    assert.equal(problemKind(scanner.end()), 'too-deep');
  });

  it('a 64 MiB string is checked without holding it (heap growth far below its size)', () => {
    const scanner = new PlanJsonScanner({ maxDepth: 10, maxValues: 100 });
    scanner.write(Buffer.from('{"format_version":"1.2","resource_changes":[{"address":"'));
    const piece = Buffer.alloc(1024 * 1024, 'a');
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    for (let i = 0; i < 64; i++) {
      scanner.write(piece);
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    scanner.write(Buffer.from('","previous_address":"b","change":{"actions":["no-op"]}}]}'));
    const checked = scanner.end();
    assert.ok(checked.ok);
    assert.equal(checked.summary.hasChanges, true, 'the long address differs from previous_address: a move');
    assert.ok(peak - before < 24 * 1024 * 1024, `heap grew by ${Math.round((peak - before) / 1048576)} MiB while reading 64 MiB`);
  });
});

describe('plan JSON check in a worker thread', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-json-check-'));
  const file = (name: string, body: Buffer | string) => {
    const full = path.join(dir, name);
    fs.writeFileSync(full, body);
    return full;
  };

  it('answers as the scanner does, for real plans and for refusals, several at once', async () => {
    const checker = new PlanJsonChecker({ maxDepth: 128, maxValues: 10_000_000 }, { concurrency: 2 });
    const real = file('real.json', fs.readFileSync(path.join(FIXTURES, 'identity', 'plan.json')));
    const deep = file('deep.json', plan(nested(200)));
    const broken = file('broken.json', '{"format_version":');
    const answers = await Promise.all([checker.check(real), checker.check(deep), checker.check(broken), checker.check(real)]);
    assert.deepEqual(answers[0], { ok: true, summary: { hasChanges: true, resourceAdditions: 0, resourceChanges: 1, resourceDestructions: 0, resourceImports: 1 } });
    assert.deepEqual(answers[1], { ok: false, problem: { kind: 'too-deep', limit: 128 } });
    assert.equal(problemKind(answers[2]), 'invalid');
    assert.deepEqual(answers[3], answers[0]);
    // Its idle workers would otherwise keep the test process alive until they retire.
    await checker.close();
  });

  it('a check that arrives as an idle worker ends is answered (by another worker)', async () => {
    const checker = new PlanJsonChecker({ maxDepth: 128, maxValues: 1000 }, { concurrency: 1, idleMs: 30 });
    const small = file('small.json', '{"format_version":"1"}');
    try {
      for (let round = 0; round < 20; round++) {
        assert.equal(problemKind(await checker.check(small)), 'ok');
        // Around the moment the idle worker is told to end.
        await new Promise((resolve) => setTimeout(resolve, 25 + (round % 10)));
      }
      assert.equal(problemKind(await checker.check(small)), 'ok');
    } finally {
      await checker.close();
    }
  });

  it('the event loop keeps turning while a large document is checked', async () => {
    const checker = new PlanJsonChecker({ maxDepth: 128, maxValues: 100_000_000 }, { concurrency: 1 });
    const unit = `${nested(30)},`;
    const big = file('big.json', `{"format_version":"1.2","x":[${unit.repeat(Math.floor((16 * 1024 * 1024) / unit.length))}[]]}`);
    const turns = watchEventLoopTurns(5);
    const started = performance.now();
    const answer = await checker.check(big);
    const checkMs = performance.now() - started;
    const longestTurn = turns.stop();
    assert.equal(problemKind(answer), 'ok');
    assert.ok(checkMs > 100, 'the check took long enough to measure the loop beside it');
    // A ratio, not a time: a check on the event loop would stall it for the whole check (a turn as long as the
    // check), while a loaded machine may pause the whole process a while (211 ms once under a load average of 25,
    // during a 4 s check), the loop included, whichever thread checks.
    assert.ok(longestTurn < checkMs / 4, `the event loop stalled ${Math.round(longestTurn)} ms during a check of ${Math.round(checkMs)} ms`);
    await checker.close();
  });
});
