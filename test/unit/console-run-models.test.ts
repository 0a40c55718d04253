/**
 * The run page's pure models (src/web/runs): outcomes grouped by severity worst first, and the plan's
 * changes by address and action, destructive first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupBySeverity, severityOf } from '../../src/web/runs/outcome-groups.js';
import { plannedChanges, plannedOutputs } from '../../src/web/runs/plan-changes-model.js';

const outcome = (id: string, tags: unknown) => ({ id, attributes: { tags } });

test('outcomes group by their Severity tag, worst level first, those without one last', () => {
  const groups = groupBySeverity([
    outcome('a', { Severity: [{ label: 'Low', level: 'info' }] }),
    outcome('b', null),
    outcome('c', { severity: [{ label: 'High', level: 'error' }], Status: [{ label: 'Denied', level: 'error' }] }),
    outcome('d', { Severity: [{ label: 'Medium', level: 'warning' }] }),
    outcome('e', { Severity: [{ label: 'High', level: 'error' }] }),
    outcome('f', { Status: [{ label: 'Denied', level: 'error' }] }),
  ]);
  assert.deepEqual(
    groups.map((group) => [group.label, group.outcomes.map((entry) => entry.id)]),
    [['Severity: High', ['c', 'e']], ['Severity: Medium', ['d']], ['Severity: Low', ['a']], ['No severity', ['b', 'f']]],
  );
  assert.equal(severityOf([]), null);
  assert.equal(severityOf({ Severity: [] }), null);
});

test('plan changes: no-op and read left out, delete+create is a replace, destructive first', () => {
  const plan = {
    resource_changes: [
      { address: 'aws_s3_bucket.logs', change: { actions: ['create'] } },
      { address: 'aws_iam_role.ci', change: { actions: ['update'] } },
      { address: 'data.aws_caller_identity.me', change: { actions: ['read'] } },
      { address: 'aws_instance.web', change: { actions: ['delete', 'create'] } },
      { address: 'aws_db_instance.old', change: { actions: ['delete'] } },
      { address: 'random_id.x', change: { actions: ['no-op'] } },
      { address: 42, change: { actions: ['create'] } },
    ],
  };
  assert.deepEqual(plannedChanges(plan).map(({ address, action }) => ({ address, action })), [
    { address: 'aws_db_instance.old', action: 'delete' },
    { address: 'aws_instance.web', action: 'replace' },
    { address: 'aws_iam_role.ci', action: 'update' },
    { address: 'aws_s3_bucket.logs', action: 'create' },
  ]);
  assert.deepEqual(plannedChanges({}), []);
  assert.deepEqual(plannedChanges(null), []);
});

test('planned changes and outputs keep localeCompare order within an action (case, digits, punctuation)', () => {
  const addresses = ['b.Z', 'b.a', 'a["x"]', 'a[10]', 'a[2]', 'A.b', 'a.b', 'module.m.b', 'module.M.a', 'é.x', 'e.y'];
  const plan = {
    resource_changes: addresses.map((address) => ({ address, change: { actions: ['update'] } })),
    output_changes: Object.fromEntries(addresses.map((name) => [name, { actions: ['create'] }])),
  };
  const expected = [...addresses].sort((a, b) => a.localeCompare(b));
  assert.deepEqual(plannedChanges(plan).map((change) => change.address), expected);
  assert.deepEqual(plannedOutputs(plan).map((output) => output.name), expected);
});
