/**
 * EventLoopTurns (src/jobs/event-loop-turns.ts): one job start per event-loop turn, so I/O is polled between
 * two; and a start that finds its turn free waits for no other (issue 18: each hop of a run paid a turn).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventLoopTurns } from '../../src/jobs/event-loop-turns.js';

/** Counts event-loop iterations: an immediate that re-arms itself runs once per check phase. */
function iterationCounter(): { now(): number; stop(): void } {
  let iterations = 0;
  let stopped = false;
  const tick = () => {
    iterations += 1;
    if (!stopped) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => iterations, stop: () => (stopped = true) };
}

test('a waiter in a free turn goes at once; the waiters after it go one per later turn, in order', async () => {
  const turns = new EventLoopTurns();
  const counter = iterationCounter();
  const released: Array<[string, number]> = [];
  const waits = ['first', 'second', 'third'].map((name) => turns.next().then(() => released.push([name, counter.now()])));
  await Promise.all(waits);
  counter.stop();
  assert.deepEqual(
    released.map(([name]) => name),
    ['first', 'second', 'third'],
  );
  assert.equal(released[0]![1], 0, 'the first waiter did not wait for a turn');
  assert.ok(released[1]![1] > released[0]![1] && released[2]![1] > released[1]![1], `one start per turn: ${JSON.stringify(released)}`);
});

test('a turn is free again once the loop has gone round', async () => {
  const turns = new EventLoopTurns();
  await turns.next();
  // Two iterations: the one that frees the turn, then a fresh one.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  const counter = iterationCounter();
  let releasedAt: number | undefined;
  await turns.next().then(() => (releasedAt = counter.now()));
  counter.stop();
  assert.equal(releasedAt, 0);
});

test('I/O that became readable meanwhile is read between the first start and the next', async () => {
  const turns = new EventLoopTurns();
  const events: string[] = [];
  const { spawn } = await import('node:child_process');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  // The child writes to its stdout (a pipe: the write is done when it returns), then leaves a mark on disk.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turns-'));
  const mark = path.join(dir, 'written');
  const script = `process.stdout.write("x"); require("node:fs").writeFileSync(${JSON.stringify(mark)}, "")`;
  const child = spawn(process.execPath, ['-e', script]);
  const received = new Promise<void>((resolve) => child.stdout.once('data', () => (events.push('io'), resolve())));
  // Hold the loop, without polling, until the child's output is certainly waiting to be read: the mark says so,
  // however long the child took to start on a loaded machine (a fixed pause was too short under load).
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(mark)) {
    assert.ok(Date.now() < deadline, 'the child wrote nothing within 30 s');
    Atomics.wait(sleeper, 0, 0, 5);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const starts: Array<Promise<void>> = [];
  for (let i = 0; i < 3; i++) starts.push(turns.next().then(() => void events.push(`job${i}`)));
  await Promise.all([...starts, received]);
  assert.equal(events[0], 'job0', `the first start waited: ${events.join(' ')}`);
  assert.ok(events.indexOf('io') < events.indexOf('job2'), `I/O read before the third start: ${events.join(' ')}`);
});
