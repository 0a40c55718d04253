/**
 * Issue 39: a serving node caps its young generation (src/ops/memory-settings.ts). V8 reads its growth factor
 * each time it would grow the space; these are the factors the node sets.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { YOUNG_GENERATION_CAP_BYTES, youngGenerationGrowthFactor } from '../../src/ops/memory-settings.js';

const MiB = 1024 * 1024;

describe('memory settings of a serving node', () => {
  it('the young generation may double only while doubling stays within the cap', () => {
    assert.equal(YOUNG_GENERATION_CAP_BYTES, 16 * MiB);
    assert.equal(youngGenerationGrowthFactor(2 * MiB), 2);
    assert.equal(youngGenerationGrowthFactor(8 * MiB), 2, 'from 8 MiB to the 16 MiB cap');
    assert.equal(youngGenerationGrowthFactor(16 * MiB), 1, 'at the cap: no growth');
    assert.equal(youngGenerationGrowthFactor(32 * MiB), 1);
  });

  it('under allocation, the young generation stays within the cap; without the cap V8 grows it past', () => {
    // A child process allocating objects that live across a few scavenges (as requests in flight do).
    const program = (cap: boolean) => `
      import v8 from 'node:v8';
      import { capYoungGeneration } from ${JSON.stringify(new URL('../../src/ops/memory-settings.ts', import.meta.url).href)};
      ${cap ? 'capYoungGeneration();' : ''}
      const live = [];
      let largest = 0;
      for (let round = 0; round < 400; round++) {
        for (let i = 0; i < 20000; i++) live.push({ round, i, text: 'x'.repeat(8) + i });
        live.splice(0, Math.max(0, live.length - 200000));
        await new Promise((resolve) => setImmediate(resolve));
        largest = Math.max(largest, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
      }
      console.log(largest);`;
    const largest = (cap: boolean) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program(cap)], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(result.status, 0, result.stderr);
      return Number(result.stdout.trim());
    };
    const uncapped = largest(false);
    assert.ok(uncapped > YOUNG_GENERATION_CAP_BYTES, `V8 alone grows it past the cap (${uncapped / MiB} MiB), so the test shows something`);
    const capped = largest(true);
    assert.ok(capped <= YOUNG_GENERATION_CAP_BYTES, `capped: ${capped / MiB} MiB`);
  });
});
