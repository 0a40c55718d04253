import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseTimestamps, timestampKey, withTimestamp, withTimestamps } from '../../src/core/status-timestamps.js';
import {
  ENFORCEMENT_LEVELS, RESULT_STATUSES, deriveStageStatus, isFinalResultStatus, type ResultFacts,
} from '../../src/taskstages/stage-status.js';

const ALL_RESULTS: ResultFacts[] = RESULT_STATUSES.flatMap((status) =>
  ENFORCEMENT_LEVELS.map((enforcementLevel) => ({ status, enforcementLevel })),
);

/** Every list of `n` results over every status × enforcement level (14^n lists). */
function* everyCombination(n: number): Generator<ResultFacts[]> {
  if (n === 0) {
    yield [];
    return;
  }
  for (const rest of everyCombination(n - 1)) for (const result of ALL_RESULTS) yield [...rest, result];
}

/**
 * The stage status rule restated as a lookup over counts, independently of the implementation's order of checks:
 * the rule reads "(open) → running; canceled → canceled; mandatory failed → awaiting_override;
 * mandatory errored → errored; mandatory unreachable → unreachable; otherwise passed".
 */
function expectedStatus(results: ResultFacts[]): string {
  const count = (status: string, level?: string) =>
    results.filter((r) => r.status === status && (level === undefined || r.enforcementLevel === level)).length;
  const open = count('pending') + count('running');
  if (open > 0) return 'running';
  if (count('canceled') > 0) return 'canceled';
  const mandatoryNotPassed = results.filter((r) => r.enforcementLevel === 'mandatory' && r.status !== 'passed').length;
  if (mandatoryNotPassed === 0) return 'passed'; // all passed, or only advisory results did not pass
  if (count('failed', 'mandatory') > 0) return 'awaiting_override';
  if (count('errored', 'mandatory') > 0) return 'errored';
  return 'unreachable';
}

describe('stage status derivation', () => {
  it('matches the rule for every combination of up to four results (status × enforcement level)', () => {
    let checked = 0;
    for (let n = 0; n <= 4; n++) {
      for (const results of everyCombination(n)) {
        assert.equal(deriveStageStatus(results), expectedStatus(results), JSON.stringify(results));
        checked++;
      }
    }
    assert.equal(checked, 1 + 14 + 14 ** 2 + 14 ** 3 + 14 ** 4);
  });

  it('single results: the whole table', () => {
    const table: Record<string, Record<string, string>> = {
      advisory: { pending: 'running', running: 'running', passed: 'passed', failed: 'passed', errored: 'passed', canceled: 'canceled', unreachable: 'passed' },
      mandatory: { pending: 'running', running: 'running', passed: 'passed', failed: 'awaiting_override', errored: 'errored', canceled: 'canceled', unreachable: 'unreachable' },
    };
    for (const level of ENFORCEMENT_LEVELS) {
      for (const status of RESULT_STATUSES) {
        assert.equal(deriveStageStatus([{ status, enforcementLevel: level }]), table[level]![status], `${level} ${status}`);
      }
    }
  });

  it('an empty stage passes', () => {
    assert.equal(deriveStageStatus([]), 'passed');
  });

  it('mandatory failed outranks errored and unreachable; errored outranks unreachable', () => {
    const m = (status: ResultFacts['status']): ResultFacts => ({ status, enforcementLevel: 'mandatory' });
    assert.equal(deriveStageStatus([m('unreachable'), m('errored'), m('failed')]), 'awaiting_override');
    assert.equal(deriveStageStatus([m('unreachable'), m('errored'), m('passed')]), 'errored');
    assert.equal(deriveStageStatus([m('unreachable'), { status: 'failed', enforcementLevel: 'advisory' }]), 'unreachable');
  });

  it('is independent of the order of results (property)', () => {
    const result = fc.record({ status: fc.constantFrom(...RESULT_STATUSES), enforcementLevel: fc.constantFrom(...ENFORCEMENT_LEVELS) });
    fc.assert(
      fc.property(fc.array(result, { maxLength: 12 }), fc.integer(), (results, seed) => {
        const shuffled = [...results].sort((a, b) => ((JSON.stringify(a).length * 31 + seed) % 7) - ((JSON.stringify(b).length * 31 + seed) % 7));
        return deriveStageStatus(results) === deriveStageStatus(shuffled) && deriveStageStatus(results) === expectedStatus(results);
      }),
      { numRuns: 2000 },
    );
  });

  it('adding a passed result or a finished advisory result never changes a settled status (property)', () => {
    const final = fc.constantFrom(...RESULT_STATUSES.filter((s) => isFinalResultStatus(s) && s !== 'canceled'));
    const result = fc.record({ status: final, enforcementLevel: fc.constantFrom(...ENFORCEMENT_LEVELS) });
    fc.assert(
      fc.property(fc.array(result, { maxLength: 10 }), final, (results, extra) => {
        const before = deriveStageStatus(results);
        return (
          deriveStageStatus([...results, { status: 'passed', enforcementLevel: 'mandatory' }]) === before &&
          deriveStageStatus([...results, { status: extra, enforcementLevel: 'advisory' }]) === before
        );
      }),
      { numRuns: 1000 },
    );
  });
});

describe('status timestamps', () => {
  it('names keys <status>-at with hyphens', () => {
    assert.equal(timestampKey('running'), 'running-at');
    assert.equal(timestampKey('awaiting_override'), 'awaiting-override-at');
  });

  it('keeps the first time of a status unless asked to refresh, and keeps other keys', () => {
    let stored = withTimestamp(null, 'awaiting_override', '2026-01-01T00:00:00.000Z');
    stored = withTimestamp(stored, 'running', '2026-01-01T00:00:01.000Z');
    stored = withTimestamp(stored, 'running', '2026-01-01T00:00:02.000Z');
    assert.deepEqual(parseTimestamps(stored), { 'awaiting-override-at': '2026-01-01T00:00:00.000Z', 'running-at': '2026-01-01T00:00:01.000Z' });
    stored = withTimestamp(stored, 'running', '2026-01-01T00:00:03.000Z', true);
    assert.equal(parseTimestamps(stored)['running-at'], '2026-01-01T00:00:03.000Z');
  });

  it('stamps several statuses at once, a status entered again getting the new time unless the first is kept', () => {
    const stored = JSON.stringify({ 'queued-at': '2026-01-01T00:00:00.000Z' });
    assert.equal(
      withTimestamps(stored, ['queued', 'planning'], '2026-01-01T00:00:05.000Z'),
      '{"queued-at":"2026-01-01T00:00:05.000Z","planning-at":"2026-01-01T00:00:05.000Z"}',
    );
    assert.equal(
      withTimestamps(stored, ['queued', 'planning'], '2026-01-01T00:00:05.000Z', true),
      '{"queued-at":"2026-01-01T00:00:00.000Z","planning-at":"2026-01-01T00:00:05.000Z"}',
    );
  });

  it('reads broken or missing JSON as no timestamps', () => {
    assert.deepEqual(parseTimestamps(undefined), {});
    assert.deepEqual(parseTimestamps('not json'), {});
    assert.deepEqual(parseTimestamps('[1]'), {});
  });
});
