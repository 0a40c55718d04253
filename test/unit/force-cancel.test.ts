/** Issue 37: HCP's force-cancel rule (src/runs/force-cancel.ts): after a cancel, once the cool-off passed, on a run not yet finished. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FORCE_CANCEL_COOL_OFF_SECONDS, forceCancelAvailableAt, forceCancelRefusal } from '../../src/runs/force-cancel.js';

const canceledAt = '2026-01-01T00:00:00.000Z';
const availableAt = new Date(Date.parse(canceledAt) + FORCE_CANCEL_COOL_OFF_SECONDS * 1000);

describe('force-cancel', () => {
  it('is available the cool-off after the cancel request, and not before any', () => {
    assert.equal(forceCancelAvailableAt({}), null);
    assert.equal(forceCancelAvailableAt({ 'canceled-at': 'garbage' }), null);
    assert.equal(forceCancelAvailableAt({ 'canceled-at': canceledAt }), availableAt.toISOString());
  });

  it('is refused without a cancel, before the cool-off ends, and on a finished run; allowed on an unfinished one after it', () => {
    const later = new Date(availableAt.getTime() + 1);
    assert.match(forceCancelRefusal('applying', {}, later) ?? '', /only after a cancel/);
    assert.match(forceCancelRefusal('applying', { 'canceled-at': canceledAt }, new Date(availableAt.getTime() - 1)) ?? '', /available from/);
    assert.equal(forceCancelRefusal('applying', { 'canceled-at': canceledAt }, availableAt), null);
    assert.equal(forceCancelRefusal('planning', { 'canceled-at': canceledAt }, later), null);
    for (const finished of ['canceled', 'discarded', 'errored', 'planned_and_finished'] as const) {
      assert.match(forceCancelRefusal(finished, { 'canceled-at': canceledAt }, later) ?? '', /already ended it/);
    }
  });
});
