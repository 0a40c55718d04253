/**
 * Issue 34: a node's OPA processes are shared fairly across organizations. A freed slot goes to the waiting
 * organization that runs the fewest, the longest waiting among equals, and none runs more than its share,
 * so an organization with nothing running waits for one slot to free, whatever another has queued.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FairSlots } from '../../src/policies/fair-slots.js';

/** Acquires a slot and records the order in which grants arrive. */
function request(slots: FairSlots, organization: string, order: string[], label: string): Promise<() => void> {
  return slots.acquire(organization).then((release) => {
    order.push(label);
    return release;
  });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('fair OPA slots', () => {
  it('gives the next freed slot to an organization with nothing running, ahead of another\'s backlog', async () => {
    const slots = new FairSlots(2, 2);
    const order: string[] = [];
    const running = [await request(slots, 'a', order, 'a1'), await request(slots, 'a', order, 'a2')];
    const backlog = Array.from({ length: 60 }, (_, i) => request(slots, 'a', order, `a${i + 3}`));
    const victim = request(slots, 'b', order, 'b1');
    await settle();
    assert.deepEqual(order, ['a1', 'a2'], 'both slots busy: nobody else started');
    running[0]!();
    await victim;
    assert.deepEqual(order, ['a1', 'a2', 'b1'], 'the victim took the first slot that freed');
    running[1]!();
    (await backlog[0]!)();
    await settle();
    assert.equal(order[3], 'a3');
  });

  it('never runs more than an organization\'s share, and leaves the other slots to others', async () => {
    const slots = new FairSlots(3, 1);
    const order: string[] = [];
    const first = await request(slots, 'a', order, 'a1');
    const second = request(slots, 'a', order, 'a2');
    await request(slots, 'b', order, 'b1');
    await request(slots, 'c', order, 'c1');
    await settle();
    assert.deepEqual(order, ['a1', 'b1', 'c1'], 'a waits at its share though a slot was free before b and c asked');
    assert.equal(slots.busy, 3);
    first();
    await second;
    assert.deepEqual(order, ['a1', 'b1', 'c1', 'a2']);
  });

  it('among organizations running as many, the one waiting longest goes first; a release counts once', async () => {
    const slots = new FairSlots(1, 1);
    const order: string[] = [];
    const release = await request(slots, 'a', order, 'a1');
    const c = request(slots, 'c', order, 'c1');
    const b = request(slots, 'b', order, 'b1');
    release();
    release();
    (await c)();
    (await b)();
    assert.deepEqual(order, ['a1', 'c1', 'b1']);
    assert.equal(slots.busy, 0);
  });
});
