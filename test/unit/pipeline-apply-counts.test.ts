import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyCountsOf } from '../../src/pipeline/apply-counts.js';

test("terraform's and tofu's human output: the last 'Apply complete!' line, imports too", () => {
  assert.deepEqual(applyCountsOf('null_resource.a: Creating...\nApply complete! Resources: 2 added, 1 changed, 3 destroyed.\n'), {
    'resource-additions': 2,
    'resource-changes': 1,
    'resource-destructions': 3,
    'resource-imports': 0,
  });
  assert.deepEqual(applyCountsOf('Apply complete! Resources: 4 imported, 0 added, 0 changed, 0 destroyed.\n\nOutputs:\n'), {
    'resource-additions': 0,
    'resource-changes': 0,
    'resource-destructions': 0,
    'resource-imports': 4,
  });
});

test('`apply -json`: the apply change_summary message (not the plan one)', () => {
  const log = [
    JSON.stringify({ type: 'version', terraform: '1.11.0' }),
    JSON.stringify({ type: 'change_summary', changes: { add: 9, change: 9, import: 9, remove: 9, operation: 'plan' } }),
    'not json at all "change_summary"',
    JSON.stringify({ type: 'change_summary', changes: { add: 1, change: 0, import: 2, remove: 1, operation: 'apply' } }),
  ].join('\n');
  assert.deepEqual(applyCountsOf(log), { 'resource-additions': 1, 'resource-changes': 0, 'resource-destructions': 1, 'resource-imports': 2 });
});

test('nothing to go by: undefined (the server reads the log itself)', () => {
  assert.equal(applyCountsOf(''), undefined);
  assert.equal(applyCountsOf('Error: something failed\n'), undefined);
  assert.equal(applyCountsOf('Apply complete! Resources: many added.'), undefined);
});
