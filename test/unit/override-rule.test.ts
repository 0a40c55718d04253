/**
 * The override's rules in one function (src/shared/override-rule.ts): who may, when, how many distinct people,
 * and whether an override releases the stage. One table row per branch of `decideOverride`, then the parts the
 * stage documents show (holds, permissions, required approvals).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  approvalsOf, decideOverride, isOverridable, isRequiredApprovals, overridePermissions, overrideStanding, requiredApprovals, stageHolds,
  type OverrideCaller, type OverrideDecision, type OverrideResultFacts, type OverrideStageFacts,
} from '../../src/shared/override-rule.js';

const nobody = { actsAsPerson: true, readsRuns: true, isOwner: false, manageRunTasks: false, managePolicyOverrides: false, overrider: 'user:u' };
const owner: OverrideCaller = { ...nobody, isOwner: true };
const taskManager: OverrideCaller = { ...nobody, manageRunTasks: true };
const policyManager: OverrideCaller = { ...nobody, managePolicyOverrides: true };
const both: OverrideCaller = { ...nobody, manageRunTasks: true, managePolicyOverrides: true };
const outsider: OverrideCaller = { ...owner, readsRuns: false };
const organizationToken: OverrideCaller = { ...owner, actsAsPerson: false, overrider: 'organization:acme' };

const failed = (requiredApprovals = 1): OverrideResultFacts => ({ status: 'failed', enforcementLevel: 'mandatory', requiredApprovals });
const advisoryFailed = (requiredApprovals = 1): OverrideResultFacts => ({ status: 'failed', enforcementLevel: 'advisory', requiredApprovals });
const passed = (requiredApprovals = 1): OverrideResultFacts => ({ status: 'passed', enforcementLevel: 'mandatory', requiredApprovals });

function stage(facts: Partial<OverrideStageFacts> = {}): OverrideStageFacts {
  return { status: 'awaiting_override', results: [failed()], policyHolds: [], workspaceRequiredApprovals: 1, overriders: [], ...facts };
}

const released = (approvals: number, required: number, permissions = { 'can-override-policy': true, 'can-override-tasks': true, 'can-override': true }): OverrideDecision => ({
  kind: 'approved', approvals, required, releases: approvals >= required, permissions,
});

describe('decideOverride: one row per branch', () => {
  const rows: Array<[string, OverrideCaller, OverrideStageFacts, OverrideDecision]> = [
    ['a caller who may not read the run does not learn of the stage', outsider, stage(), { kind: 'hidden' }],
    ['hidden comes before every other answer, even for a stage that does not await', outsider, stage({ status: 'passed' }), { kind: 'hidden' }],
    ['the organization token is not a person: refused', organizationToken, stage(), { kind: 'refused' }],
    ['a reader without a right is refused', nobody, stage(), { kind: 'refused' }],
    ['a failed run task needs manage-run-tasks: the policy right is not enough', policyManager, stage(), { kind: 'refused' }],
    ['a failed policy needs manage-policy-overrides: the tasks right is not enough', taskManager, stage({ results: [passed()], policyHolds: ['override'] }), { kind: 'refused' }],
    ['both failed: both rights', policyManager, stage({ policyHolds: ['override'] }), { kind: 'refused' }],
    ['refused comes before the status: a stage that does not await is still 403 to a reader without the right', nobody, stage({ status: 'passed' }), { kind: 'refused' }],
    ['only from awaiting_override', owner, stage({ status: 'running' }), { kind: 'not-awaiting', status: 'running' }],
    ['a discarded stage is not overridable', owner, stage({ status: 'failed' }), { kind: 'not-awaiting', status: 'failed' }],
    ['one person counts once', owner, stage({ results: [failed(2)], overriders: ['user:u'] }), { kind: 'already-approved' }],
    ['the first of one: released', owner, stage(), released(1, 1)],
    ['the tasks right releases a stage held by a run task', taskManager, stage(), released(1, 1, { 'can-override-policy': false, 'can-override-tasks': true, 'can-override': true })],
    ['the policy right releases a stage held by a policy', policyManager, stage({ results: [passed()], policyHolds: ['override'] }), released(1, 1, { 'can-override-policy': true, 'can-override-tasks': false, 'can-override': true })],
    ['both rights release a stage held by both', both, stage({ policyHolds: ['override'] }), released(1, 1)],
    ['the first of two: recorded, not released', owner, stage({ results: [failed(2)] }), released(1, 2)],
    ['the second distinct person of two: released', owner, stage({ results: [failed(2)], overriders: ['user:v'] }), released(2, 2)],
    ['the workspace asks for more than its tasks: the most wins', owner, stage({ workspaceRequiredApprovals: 3, overriders: ['user:v'] }), released(2, 3)],
    ['a task asks for more than its workspace: the most wins', owner, stage({ results: [failed(2)], workspaceRequiredApprovals: 1, overriders: ['team:t'] }), released(2, 2)],
    ['a team token counts once, as a person does', { ...owner, overrider: 'team:t' }, stage({ results: [failed(3)], overriders: ['team:t', 'user:v'] }), { kind: 'already-approved' }],
  ];
  for (const [name, caller, facts, expected] of rows) {
    it(name, () => assert.deepEqual(decideOverride(caller, facts), expected));
  }
});

describe('what holds a stage (who may override depends on it)', () => {
  it('awaiting an override: the failed mandatory run tasks and the policies that asked for one', () => {
    assert.deepEqual(stageHolds(stage()), { tasks: true, policies: false });
    assert.deepEqual(stageHolds(stage({ results: [advisoryFailed(), passed()], policyHolds: ['override', 'none'] })), { tasks: false, policies: true });
    assert.deepEqual(stageHolds(stage({ results: [failed()], policyHolds: ['fail'] })), { tasks: true, policies: false });
  });
  it('before that: whatever the stage holds', () => {
    assert.deepEqual(stageHolds(stage({ status: 'running', results: [passed()], policyHolds: [] })), { tasks: true, policies: false });
    assert.deepEqual(stageHolds(stage({ status: 'pending', results: [], policyHolds: ['none'] })), { tasks: false, policies: true });
    assert.deepEqual(stageHolds(stage({ status: 'pending', results: [], policyHolds: [] })), { tasks: false, policies: false });
  });
  it('a stage that holds nothing is overridden as a stage of run tasks', () => {
    assert.deepEqual(overridePermissions(taskManager, { tasks: false, policies: false }), { 'can-override-policy': false, 'can-override-tasks': true, 'can-override': true });
    assert.deepEqual(overridePermissions(policyManager, { tasks: false, policies: false }), { 'can-override-policy': true, 'can-override-tasks': false, 'can-override': false });
  });
});

describe('how many distinct people', () => {
  it('the most that a failed mandatory task or the workspace asks for, at least 1', () => {
    assert.equal(requiredApprovals({ results: [], workspaceRequiredApprovals: 1 }), 1);
    assert.equal(requiredApprovals({ results: [failed(3), failed(2)], workspaceRequiredApprovals: 1 }), 3);
    assert.equal(requiredApprovals({ results: [passed(3), advisoryFailed(5), failed(2)], workspaceRequiredApprovals: 1 }), 2, 'only failed mandatory tasks count');
    assert.equal(requiredApprovals({ results: [failed(2)], workspaceRequiredApprovals: 4 }), 4);
    assert.equal(requiredApprovals({ results: [], workspaceRequiredApprovals: 2 }), 2, 'a stage held by a policy alone follows its workspace');
  });
  it('a count that is not a whole number from 1 counts as 1', () => {
    assert.equal(requiredApprovals({ results: [failed(0), failed(Number.NaN)], workspaceRequiredApprovals: -2 }), 1);
  });
  it('one overrider counts once', () => {
    assert.equal(approvalsOf(['user:a', 'user:b', 'user:a']), 2);
  });
  it('the stage document shows "n of N" and whether it is overridable', () => {
    assert.deepEqual(overrideStanding(owner, stage({ results: [failed(2)], workspaceRequiredApprovals: 3, overriders: ['user:a', 'team:t'] })), {
      holds: { tasks: true, policies: false },
      permissions: { 'can-override-policy': true, 'can-override-tasks': true, 'can-override': true },
      isOverridable: true,
      required: 3,
      approvals: 2,
    });
    assert.equal(isOverridable('awaiting_override'), true);
    for (const status of ['pending', 'running', 'passed', 'failed', 'errored', 'canceled', 'unreachable']) assert.equal(isOverridable(status), false);
  });
});

describe('a required-approvals setting', () => {
  it('is a whole number from 1 to 10', () => {
    for (const good of [1, 2, 10]) assert.equal(isRequiredApprovals(good), true, String(good));
    for (const bad of [0, 11, 1.5, -1, Number.NaN, '2', null, undefined]) assert.equal(isRequiredApprovals(bad), false, String(bad));
  });
});
