import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRunOptions, runOperationOf, runOptionsOf, storedRunOptions } from '../../src/runs/run-options.js';
import { parseRunListFilter } from '../../src/runs/run-list-filter.js';

describe('run options (what a run was asked, echoed as HCP echoes it)', () => {
  it("HCP's defaults when nothing is asked; stored as {} then", () => {
    const options = runOptionsOf({});
    assert.deepEqual(options, {
      refresh: true, refreshOnly: false, allowEmptyApply: false, savePlan: false, replaceAddrs: [], targetAddrs: [], terraformVersion: null, variables: [],
    });
    assert.equal(storedRunOptions(options), '{}');
    assert.deepEqual(parseRunOptions('{}'), options);
  });

  it('what is asked survives storing and reading', () => {
    const options = runOptionsOf({
      refresh: false, 'refresh-only': true, 'allow-empty-apply': true, 'replace-addrs': ['a.b'], 'target-addrs': ['c.d'], variables: [{ key: 'k', value: '"v"' }],
    });
    assert.deepEqual(parseRunOptions(storedRunOptions(options)), options);
  });

  it('one operation per run: plan-only first, then refresh-only, destroy, empty apply, else plan and apply', () => {
    const base = runOptionsOf({});
    const operation = (planOnly: boolean, isDestroy: boolean, asked: Parameters<typeof runOptionsOf>[0]) =>
      runOperationOf({ planOnly, isDestroy, options: { ...base, ...runOptionsOf(asked) } });
    assert.equal(operation(true, true, { 'refresh-only': true }), 'plan_only');
    assert.equal(operation(false, true, { 'refresh-only': true }), 'refresh_only');
    assert.equal(operation(false, true, { 'allow-empty-apply': true }), 'destroy');
    assert.equal(operation(false, false, { 'allow-empty-apply': true }), 'empty_apply');
    assert.equal(operation(false, false, {}), 'plan_and_apply');
  });
});

describe('the run list filter', () => {
  it('reads comma-separated any-of lists, the status group, searches; commit and agent pools match nothing', () => {
    assert.deepEqual(parseRunListFilter({ 'filter[status]': 'pending, planned', 'filter[operation]': 'plan_only', 'search[user]': ' alice ' }), {
      statuses: ['pending', 'planned'], operations: ['plan_only'], sources: undefined, statusGroup: undefined, matchesNothing: false, user: 'alice', basic: undefined,
    });
    assert.equal(parseRunListFilter({ 'filter[commit]': 'abc' }).matchesNothing, true);
    assert.equal(parseRunListFilter({ 'filter[agent_pool_names]': 'pool' }).matchesNothing, true);
    assert.equal(parseRunListFilter({ 'filter[commit]': '' }).matchesNothing, false);
    assert.equal(parseRunListFilter({ 'filter[status_group]': 'final' }).statusGroup, 'final');
  });

  it('an unknown status, operation, source or group, or two groups, is a 422 naming the parameter', () => {
    for (const query of [{ 'filter[status]': 'sleeping' }, { 'filter[operation]': 'all' }, { 'filter[source]': 'vcs' }, { 'filter[status_group]': 'final,non_final' }]) {
      assert.throws(() => parseRunListFilter(query), (error: { status: number; source?: { parameter?: string } }) => error.status === 422 && error.source?.parameter === Object.keys(query)[0]);
    }
  });
});
