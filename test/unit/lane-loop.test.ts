import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { JobQueue } from '../../src/jobs/job-queue.js';
import { LaneLoop } from '../../src/jobs/lane-loop.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('lane loop wake-ups', () => {
  it('a wake-up already served by a claim does not make another claim a turn later', async () => {
    let claims = 0;
    let loop!: LaneLoop;
    // A queue answering at once, as SQLite does: a whole loop turn runs within one burst of microtasks.
    const queue = {
      claim: async () => {
        claims += 1;
        if (claims === 2) loop.wake(); // a job of the lane finishes while this claim is on its way
        return [];
      },
      nextRunAt: async () => undefined,
    } as unknown as JobQueue;
    loop = new LaneLoop(queue, { lane: 'work', limits: { concurrency: 4 }, nodeId: 'node-1', pollMs: 60_000, leaseMs: 5000, log: pino({ level: 'silent' }), run: async () => {} });
    loop.start();
    try {
      await turn();
      assert.equal(claims, 1, 'the claim at start');
      loop.wake();
      for (let i = 0; i < 5; i++) await turn();
      // The wake-up: a claim. The one during it: a claim right after, which serves it. Nothing more.
      assert.equal(claims, 3);
    } finally {
      await loop.stop(1000);
    }
  });
});
