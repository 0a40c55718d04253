/**
 * The pure rules of the record (issue 27): apply counts read from terraform's last line or the pipeline's
 * report, how many approvals a stage needs and has, and the words of an errored run's event.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countsFromApplyLog, parseAgentReport, reportedCounts, storedReport } from '../../src/runs/agent-report.js';
import { describeRunStatus } from '../../src/runs/run-event-descriptions.js';
import { resultsSummary } from '../../src/taskstages/stage-record.js';
import type { EnforcementLevel } from '../../src/shared/enforcement-levels.js';
import type { ResultStatus } from '../../src/shared/task-stage-statuses.js';

describe('apply counts', () => {
  it("reads terraform's and tofu's Apply complete! line, with and without imports, through ANSI colours", () => {
    assert.deepEqual(countsFromApplyLog('\u001b[0m\u001b[1m\u001b[32mApply complete! Resources: 2 added, 1 changed, 3 destroyed.\u001b[0m\n'), {
      'resource-imports': 0, 'resource-additions': 2, 'resource-changes': 1, 'resource-destructions': 3,
    });
    assert.deepEqual(countsFromApplyLog('Apply complete! Resources: 4 imported, 0 added, 0 changed, 0 destroyed.'), {
      'resource-imports': 4, 'resource-additions': 0, 'resource-changes': 0, 'resource-destructions': 0,
    });
    assert.equal(countsFromApplyLog('Error: something failed'), undefined);
  });

  it('a report with counts is checked, stored in one spelling, and wins over the log; only applies take them', () => {
    const report = parseAgentReport({ status: 'finished', 'resource-additions': 1, 'resource-destructions': 2 });
    assert.deepEqual(report, { status: 'finished', counts: { 'resource-additions': 1, 'resource-changes': 0, 'resource-destructions': 2, 'resource-imports': 0 } });
    assert.equal(storedReport(report), '{"status":"finished","resource-additions":1,"resource-changes":0,"resource-destructions":2,"resource-imports":0}');
    assert.deepEqual(reportedCounts('apply', report, 'Apply complete! Resources: 9 added, 9 changed, 9 destroyed.'), {
      resource_additions: 1, resource_changes: 0, resource_destructions: 2, resource_imports: 0,
    });
    assert.deepEqual(reportedCounts('apply', { status: 'finished' }, 'Apply complete! Resources: 9 added, 8 changed, 7 destroyed.'), {
      resource_additions: 9, resource_changes: 8, resource_destructions: 7, resource_imports: 0,
    });
    assert.deepEqual(reportedCounts('plan', report), {});
    assert.deepEqual(reportedCounts('apply', { status: 'finished' }, 'no summary'), {});
    for (const bad of [-1, 1.5, '2', true]) assert.throws(() => parseAgentReport({ status: 'finished', 'resource-changes': bad }), /whole number/);
  });
});

describe('the record of a stage', () => {
  const result = (status: ResultStatus, enforcement: EnforcementLevel, required: number) => ({
    task_name: 't', status, enforcement_level: enforcement, message: null, required_approvals: required,
  });
  it('says which results failed a stage', () => {
    assert.equal(resultsSummary([{ ...result('errored', 'mandatory', 1), task_name: 'scan', message: 'no callback' }, result('failed', 'advisory', 1)], true), "'scan' (mandatory) errored: no callback");
  });
});

describe('run event descriptions', () => {
  it('an errored run says why; a decision names its actor', () => {
    assert.equal(describeRunStatus('errored', null, 'the plan errored: boom'), 'Errored: the plan errored: boom');
    assert.equal(describeRunStatus('discarded', { userId: 'user-1', name: 'alice', kind: 'user' }), 'Discarded by alice');
    assert.equal(describeRunStatus('confirmed', null), 'Apply confirmed by auto-apply');
    assert.equal(describeRunStatus('post_plan_awaiting_decision', null), 'Waiting for an override of the post-plan task stage');
  });
});
