/**
 * The pure rules of policies (issue 29): how OPA's answers become outcomes, how set outcomes judge an
 * evaluation, how results and evaluations settle a stage together, and who may override which hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countResults, judgeEvaluation, policyOutcome, type PolicyLevel, type SetOutcome } from '../../src/policies/policy-outcomes.js';
import { enforcementLevelOf } from '../../src/policies/policy-input.js';
import { deriveStageStatus } from '../../src/taskstages/stage-status.js';
import { taskStagePermissions } from '../../src/access/task-stage-permissions.js';
import { noAccess, fullAccess } from '../../src/access/organization-access.js';
import type { OrganizationStanding } from '../../src/access/organization-standing.js';
import type { EnforcementLevel } from '../../src/shared/enforcement-levels.js';

const policy = (level: EnforcementLevel) => ({ name: `p-${level}`, description: null, query: 'data.x.deny', level });

describe('policy outcomes', () => {
  it('an empty array passes, a non-empty one fails with each element as output, anything else errors', () => {
    assert.equal(policyOutcome(policy('mandatory'), { ok: true, defined: true, value: [], prints: [] }).status, 'passed');
    const failed = policyOutcome(policy('mandatory'), { ok: true, defined: true, value: ['a is public', { id: 1 }], prints: ['hello'] });
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.output, [{ print: 'hello' }, { print: 'a is public' }, { print: '{"id":1}' }]);
    assert.match(policyOutcome(policy('advisory'), { ok: true, defined: true, value: { a: 1 }, prints: [] }).output.at(-1)!.print, /must give an array, it gave an object/);
    assert.match(policyOutcome(policy('advisory'), { ok: true, defined: true, value: true, prints: [] }).output.at(-1)!.print, /a boolean/);
    assert.match(policyOutcome(policy('advisory'), { ok: true, defined: false, prints: [] }).output.at(-1)!.print, /undefined/);
    const errored = policyOutcome(policy('mandatory'), { ok: false, reason: 'timed out' });
    assert.deepEqual([errored.status, errored.output], ['errored', [{ print: 'timed out' }]]);
  });

  it('counts passed, advisory and mandatory failures, and errors', () => {
    const outcomes = [
      policyOutcome(policy('mandatory'), { ok: true, defined: true, value: ['x'], prints: [] }),
      policyOutcome(policy('advisory'), { ok: true, defined: true, value: ['x'], prints: [] }),
      policyOutcome(policy('advisory'), { ok: true, defined: true, value: [], prints: [] }),
      policyOutcome(policy('advisory'), { ok: false, reason: 'r' }),
    ];
    assert.deepEqual(countResults(outcomes), { 'advisory-failed': 1, 'mandatory-failed': 1, passed: 1, errored: 1 });
  });

  const set = (overridable: boolean, statuses: Array<[PolicyLevel, 'passed' | 'failed' | 'errored']>, error: string | null = null): SetOutcome => {
    const outcomes = statuses.map(([level, status]) => ({ enforcement_level: level, query: 'q', status, policy_name: 'p', description: '', output: [] }));
    return { policySetId: 's', policySetName: 's', policySetDescription: null, overridable, error, outcomes, resultCount: countResults(outcomes) };
  };

  it('judges: a hard failure beats an overridable one, which beats an error; advisory failures only warn', () => {
    assert.deepEqual(judgeEvaluation([]), { status: 'passed', hold: 'none' });
    assert.deepEqual(judgeEvaluation([set(true, [['advisory', 'failed'], ['advisory', 'errored']])]), { status: 'passed', hold: 'none' });
    assert.deepEqual(judgeEvaluation([set(true, [['mandatory', 'failed']])]), { status: 'failed', hold: 'override' });
    assert.deepEqual(judgeEvaluation([set(false, [['mandatory', 'failed']])]), { status: 'failed', hold: 'fail' });
    assert.deepEqual(judgeEvaluation([set(true, [['mandatory', 'failed']]), set(false, [['mandatory', 'failed']])]), { status: 'failed', hold: 'fail' });
    assert.deepEqual(judgeEvaluation([set(true, [['mandatory', 'errored']]), set(true, [['mandatory', 'failed']])]), { status: 'failed', hold: 'override' });
    assert.deepEqual(judgeEvaluation([set(true, [['mandatory', 'errored']])]), { status: 'errored', hold: 'error' });
    assert.deepEqual(judgeEvaluation([set(true, [], 'no plan')]), { status: 'errored', hold: 'error' });
  });

  it('judges unevaluated Sentinel policies by HCP\'s levels: advisory warns, soft-mandatory awaits an override, hard-mandatory fails', () => {
    assert.deepEqual(judgeEvaluation([set(true, [['advisory', 'errored']])]), { status: 'passed', hold: 'none' });
    // A Sentinel set's `overridable` does not decide: the policy's level does.
    assert.deepEqual(judgeEvaluation([set(false, [['soft-mandatory', 'errored']])]), { status: 'errored', hold: 'override' });
    assert.deepEqual(judgeEvaluation([set(true, [['hard-mandatory', 'errored']])]), { status: 'errored', hold: 'fail' });
    assert.deepEqual(judgeEvaluation([set(true, [['hard-mandatory', 'errored']]), set(true, [['mandatory', 'failed']])]), { status: 'failed', hold: 'fail' });
    assert.deepEqual(judgeEvaluation([set(true, [['soft-mandatory', 'errored']]), set(true, [['mandatory', 'errored']])]), { status: 'errored', hold: 'override' });
    assert.deepEqual(countResults(set(true, [['hard-mandatory', 'failed'], ['soft-mandatory', 'errored']]).outcomes), { 'advisory-failed': 0, 'mandatory-failed': 1, passed: 0, errored: 1 });
    assert.throws(() => enforcementLevelOf({ 'enforcement-level': 'mandatory' }, true, 'sentinel'), /soft-mandatory or hard-mandatory/);
    assert.equal(enforcementLevelOf({ enforce: [{ mode: 'hard-mandatory' }] }, true, 'sentinel'), 'hard-mandatory');
  });

  it('reads the enforcement level from enforcement-level or enforce, never both, advisory or mandatory only', () => {
    assert.equal(enforcementLevelOf({ 'enforcement-level': 'advisory' }, true), 'advisory');
    assert.equal(enforcementLevelOf({ enforce: [{ path: 'x.rego', mode: 'mandatory' }] }, true), 'mandatory');
    assert.equal(enforcementLevelOf({}, false), undefined);
    assert.throws(() => enforcementLevelOf({}, true), /required/);
    assert.throws(() => enforcementLevelOf({ enforce: [{ mode: 'soft-mandatory' }] }, true), /advisory or mandatory/);
    assert.throws(() => enforcementLevelOf({ 'enforcement-level': 'advisory', enforce: [] }, true), /not both/);
  });
});

describe('stage status with policy evaluations', () => {
  const passedTask = { status: 'passed' as const, enforcementLevel: 'mandatory' as const };
  const failedTask = { status: 'failed' as const, enforcementLevel: 'mandatory' as const };
  it('waits for open evaluations, and settles with results by the strongest hold', () => {
    assert.equal(deriveStageStatus([passedTask], [{ status: 'running', hold: 'none' }]), 'running');
    assert.equal(deriveStageStatus([], [{ status: 'pending', hold: 'none' }]), 'running');
    assert.equal(deriveStageStatus([passedTask], [{ status: 'passed', hold: 'none' }]), 'passed');
    assert.equal(deriveStageStatus([passedTask], [{ status: 'failed', hold: 'override' }]), 'awaiting_override');
    assert.equal(deriveStageStatus([failedTask], [{ status: 'failed', hold: 'fail' }]), 'failed');
    assert.equal(deriveStageStatus([failedTask], [{ status: 'errored', hold: 'error' }]), 'awaiting_override');
    assert.equal(deriveStageStatus([passedTask], [{ status: 'errored', hold: 'error' }]), 'errored');
    assert.equal(deriveStageStatus([passedTask], [{ status: 'canceled', hold: 'none' }]), 'canceled');
    assert.equal(deriveStageStatus([], []), 'passed');
  });
});

describe('who may override a stage held by policies', () => {
  const standing = (access: Partial<Record<string, boolean>>, isOwner = false): OrganizationStanding => ({
    organizationName: 'o', principal: { kind: 'user', userId: 'u' } as OrganizationStanding['principal'], isOwner, isMember: true,
    access: { ...(isOwner ? fullAccess() : noAccess()), 'read-workspaces': true, ...access }, teamIds: new Set(), actsAsPerson: true, teamsEntitled: true,
  });
  it('needs the right for every kind of thing that holds it', () => {
    const tasks = standing({ 'manage-run-tasks': true });
    const policies = standing({ 'manage-policy-overrides': true });
    const both = standing({ 'manage-run-tasks': true, 'manage-policy-overrides': true });
    assert.equal(taskStagePermissions(tasks, { tasks: false, policies: true })['can-override'], false);
    assert.equal(taskStagePermissions(policies, { tasks: false, policies: true })['can-override'], true);
    assert.equal(taskStagePermissions(policies, { tasks: true, policies: true })['can-override'], false);
    assert.equal(taskStagePermissions(both, { tasks: true, policies: true })['can-override'], true);
    assert.equal(taskStagePermissions(standing({}, true), { tasks: true, policies: true })['can-override'], true);
    assert.equal(taskStagePermissions(tasks)['can-override'], true, 'a stage of run tasks only, as before');
  });
});
