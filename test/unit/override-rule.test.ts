/**
 * The override's rules in one function (src/shared/override-rule.ts): who may, when, how many distinct people,
 * whether an override releases the stage, and (issue 34) that approvals are people: a team or site token counts
 * only where one approval is enough, a person counts once, an approval is counted again with its overrider's
 * standing now, and a run's author may not approve it where the workspace prevents it. One table row per branch
 * of `decideOverride`, then properties over every combination, then the parts the stage documents show.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  countedApprovals, decideOverride, isOverridable, isRequiredApprovals, overridePermissions, overrideStanding, refusalOf, requiredApprovals, stageHolds,
  type ApproverStanding, type OverrideCaller, type OverrideDecision, type OverrideResultFacts, type OverrideStageFacts, type PriorApproval,
} from '../../src/shared/override-rule.js';

const nobody = { actsAsPerson: true, isUser: true, readsRuns: true, isOwner: false, manageRunTasks: false, managePolicyOverrides: false, overrider: 'user:u' };
const owner: OverrideCaller = { ...nobody, isOwner: true };
const taskManager: OverrideCaller = { ...nobody, manageRunTasks: true };
const policyManager: OverrideCaller = { ...nobody, managePolicyOverrides: true };
const both: OverrideCaller = { ...nobody, manageRunTasks: true, managePolicyOverrides: true };
const outsider: OverrideCaller = { ...owner, readsRuns: false };
const organizationToken: OverrideCaller = { ...owner, actsAsPerson: false, isUser: false, overrider: 'organization:acme' };
const teamToken: OverrideCaller = { ...owner, isUser: false, overrider: 'team:t' };
const siteToken: OverrideCaller = { ...owner, isUser: false, overrider: 'site-admin' };

const failed = (requiredApprovals = 1): OverrideResultFacts => ({ status: 'failed', enforcementLevel: 'mandatory', requiredApprovals });
const advisoryFailed = (requiredApprovals = 1): OverrideResultFacts => ({ status: 'failed', enforcementLevel: 'advisory', requiredApprovals });
const passed = (requiredApprovals = 1): OverrideResultFacts => ({ status: 'passed', enforcementLevel: 'mandatory', requiredApprovals });

const { overrider: _key, ...ownerNow } = owner;
/** An earlier approval by `overrider`, who stands now as `now` (an owner unless said). */
const prior = (overrider: string, now: ApproverStanding | null = { ...ownerNow, isUser: overrider.startsWith('user:') }): PriorApproval => ({ overrider, now });

function stage(facts: Partial<OverrideStageFacts> = {}): OverrideStageFacts {
  return {
    status: 'awaiting_override', results: [failed()], policyHolds: [], workspaceRequiredApprovals: 1, overriders: [], runAuthor: 'user:author', preventSelfApproval: true,
    ...facts,
  };
}

const released = (approvals: number, required: number, permissions = { 'can-override-policy': true, 'can-override-tasks': true, 'can-override': true }): OverrideDecision => ({
  kind: 'approved', approvals, required, releases: approvals >= required, permissions,
});
const refused = (reason: 'rights' | 'not-a-person' | 'own-run', required = 1): OverrideDecision => ({ kind: 'refused', reason, required });

describe('decideOverride: one row per branch', () => {
  const rows: Array<[string, OverrideCaller, OverrideStageFacts, OverrideDecision]> = [
    ['a caller who may not read the run does not learn of the stage', outsider, stage(), { kind: 'hidden' }],
    ['hidden comes before every other answer, even for a stage that does not await', outsider, stage({ status: 'passed' }), { kind: 'hidden' }],
    ['the organization token is not a person: refused', organizationToken, stage(), refused('rights')],
    ['a reader without a right is refused', nobody, stage(), refused('rights')],
    ['a failed run task needs manage-run-tasks: the policy right is not enough', policyManager, stage(), refused('rights')],
    ['a failed policy needs manage-policy-overrides: the tasks right is not enough', taskManager, stage({ results: [passed()], policyHolds: ['override'] }), refused('rights')],
    ['both failed: both rights', policyManager, stage({ policyHolds: ['override'] }), refused('rights')],
    ['refused comes before the status: a stage that does not await is still 403 to a reader without the right', nobody, stage({ status: 'passed' }), refused('rights')],
    ['only from awaiting_override', owner, stage({ status: 'running' }), { kind: 'not-awaiting', status: 'running' }],
    ['a discarded stage is not overridable', owner, stage({ status: 'failed' }), { kind: 'not-awaiting', status: 'failed' }],
    ['one person counts once', owner, stage({ results: [failed(2)], overriders: [prior('user:u')] }), { kind: 'already-approved' }],
    ['the first of one: released', owner, stage(), released(1, 1)],
    ['the tasks right releases a stage held by a run task', taskManager, stage(), released(1, 1, { 'can-override-policy': false, 'can-override-tasks': true, 'can-override': true })],
    ['the policy right releases a stage held by a policy', policyManager, stage({ results: [passed()], policyHolds: ['override'] }), released(1, 1, { 'can-override-policy': true, 'can-override-tasks': false, 'can-override': true })],
    ['both rights release a stage held by both', both, stage({ policyHolds: ['override'] }), released(1, 1)],
    ['the first of two: recorded, not released', owner, stage({ results: [failed(2)] }), released(1, 2)],
    ['the second distinct person of two: released', owner, stage({ results: [failed(2)], overriders: [prior('user:v')] }), released(2, 2)],
    ['the workspace asks for more than its tasks: the most wins', owner, stage({ workspaceRequiredApprovals: 3, overriders: [prior('user:v')] }), released(2, 3)],
    ['a task asks for more than its workspace: the most wins', owner, stage({ results: [failed(2)], workspaceRequiredApprovals: 1, overriders: [prior('user:v')] }), released(2, 2)],
    // Approvals are people (issue 34).
    ['a team token releases a stage that needs one approval', teamToken, stage(), released(1, 1)],
    ['the site token releases a stage that needs one approval', siteToken, stage(), released(1, 1)],
    ['a team token is no person where two are needed: refused', teamToken, stage({ workspaceRequiredApprovals: 2 }), refused('not-a-person', 2)],
    ['the site token likewise', siteToken, stage({ results: [failed(3)] }), refused('not-a-person', 3)],
    ['a team token after a person of two: still refused, the person alone does not release', teamToken, stage({ workspaceRequiredApprovals: 2, overriders: [prior('user:u')] }), refused('not-a-person', 2)],
    ['the status ranks before not being a person', teamToken, stage({ status: 'running', workspaceRequiredApprovals: 2 }), { kind: 'not-awaiting', status: 'running' }],
    ["the run's author where two are needed and the workspace prevents it: refused", { ...owner, overrider: 'user:author' }, stage({ workspaceRequiredApprovals: 2 }), refused('own-run', 2)],
    ["the run's author where the workspace allows it: counted", { ...owner, overrider: 'user:author' }, stage({ workspaceRequiredApprovals: 2, preventSelfApproval: false }), released(1, 2)],
    ["the run's author where one approval is enough: released, whatever the setting", { ...owner, overrider: 'user:author' }, stage(), released(1, 1)],
    ['an earlier approval by someone now gone does not count', owner, stage({ workspaceRequiredApprovals: 2, overriders: [prior('user:v', null)] }), released(1, 2)],
    ['an earlier approval by someone who lost the right does not count', owner, stage({ workspaceRequiredApprovals: 2, overriders: [prior('user:v', { ...ownerNow, isOwner: false })] }), released(1, 2)],
    ['an earlier approval by someone who may no longer read the run does not count', owner, stage({ workspaceRequiredApprovals: 2, overriders: [prior('user:v', { ...ownerNow, readsRuns: false })] }), released(1, 2)],
    ['an earlier team token approval does not count where two are needed', owner, stage({ workspaceRequiredApprovals: 2, overriders: [prior('team:t')] }), released(1, 2)],
    ["an earlier approval by the run's author does not count once the workspace prevents it", owner, stage({ workspaceRequiredApprovals: 2, overriders: [prior('user:author')] }), released(1, 2)],
    ['an earlier approval that no longer counts still stops its giver approving twice', { ...owner, overrider: 'user:v' }, stage({ workspaceRequiredApprovals: 3, overriders: [prior('user:v', { ...ownerNow, readsRuns: true })] }), { kind: 'already-approved' }],
  ];
  for (const [name, caller, facts, expected] of rows) {
    it(name, () => assert.deepEqual(decideOverride(caller, facts), expected));
  }
});

describe('approvals are people: properties over every combination', () => {
  const standingArb: fc.Arbitrary<ApproverStanding> = fc.record({
    actsAsPerson: fc.boolean(), isUser: fc.boolean(), readsRuns: fc.boolean(), isOwner: fc.boolean(), manageRunTasks: fc.boolean(), managePolicyOverrides: fc.boolean(),
  });
  const keyArb = fc.constantFrom('user:a', 'user:b', 'user:c', 'user:author', 'team:t', 'team:s', 'site-admin');
  // Only a user's own token is a user (access/task-stage-permissions.ts makes both from the same principal).
  const isUserKey = (key: string) => key.startsWith('user:');
  const callerArb: fc.Arbitrary<OverrideCaller> = fc.tuple(standingArb, keyArb).map(([standing, overrider]) => ({ ...standing, isUser: isUserKey(overrider), overrider }));
  const resultArb: fc.Arbitrary<OverrideResultFacts> = fc.record({
    status: fc.constantFrom('passed', 'failed', 'errored', 'running'), enforcementLevel: fc.constantFrom('advisory', 'mandatory'), requiredApprovals: fc.integer({ min: 1, max: 4 }),
  });
  const stageArb: fc.Arbitrary<OverrideStageFacts> = fc.record({
    status: fc.constantFrom('awaiting_override', 'running', 'passed', 'failed'),
    results: fc.array(resultArb, { maxLength: 3 }),
    policyHolds: fc.array(fc.constantFrom('none', 'override', 'fail', 'error'), { maxLength: 2 }),
    workspaceRequiredApprovals: fc.integer({ min: 1, max: 4 }),
    overriders: fc.uniqueArray(fc.record({ overrider: keyArb, now: fc.option(standingArb, { nil: null }) }), { selector: (p) => p.overrider, maxLength: 5 })
      .map((list) => list.map((p) => ({ overrider: p.overrider, now: p.now && { ...p.now, isUser: isUserKey(p.overrider) } }))),
    runAuthor: fc.constantFrom('user:author', null),
    preventSelfApproval: fc.boolean(),
  });

  it('while a stage awaits, approvals never exceed the distinct people (users) among the overriders where more than one is needed', () => {
    fc.assert(fc.property(stageArb, (any) => {
      const facts: OverrideStageFacts = { ...any, status: 'awaiting_override' };
      const people = new Set(facts.overriders.filter((p) => isUserKey(p.overrider) && p.now).map((p) => p.overrider));
      if (requiredApprovals(facts) > 1) assert.ok(countedApprovals(facts) <= people.size);
      assert.ok(countedApprovals(facts) <= new Set(facts.overriders.map((p) => p.overrider)).size);
    }));
  });

  it('an approval that releases a stage needing N > 1 brings N distinct users who each hold the right now', () => {
    fc.assert(fc.property(callerArb, stageArb, (caller, facts) => {
      const decision = decideOverride(caller, facts);
      if (decision.kind !== 'approved' || !decision.releases || decision.required <= 1) return;
      assert.equal(caller.isUser, true, 'the releasing caller is a person');
      const counted = facts.overriders.filter((p) => p.now && refusalOf({ ...p.now, overrider: p.overrider }, facts, stageHolds(facts), decision.required) === null);
      assert.ok(counted.every((p) => p.now!.isUser && p.overrider !== caller.overrider));
      assert.ok(new Set(counted.map((p) => p.overrider)).size + 1 >= decision.required);
      if (facts.preventSelfApproval && facts.runAuthor) {
        assert.notEqual(caller.overrider, facts.runAuthor);
        assert.ok(counted.every((p) => p.overrider !== facts.runAuthor));
      }
    }));
  });

  it('a non-person caller (team, site or organization token) is refused wherever more than one approval is needed', () => {
    fc.assert(fc.property(callerArb, stageArb, (caller, facts) => {
      const decision = decideOverride({ ...caller, isUser: false, overrider: 'team:t' }, facts);
      if (requiredApprovals(facts) > 1) assert.ok(decision.kind !== 'approved', JSON.stringify(decision));
    }));
  });

  it('losing the standing of an earlier overrider never adds an approval', () => {
    fc.assert(fc.property(stageArb, fc.nat(), (facts, pick) => {
      if (facts.overriders.length === 0) return;
      const index = pick % facts.overriders.length;
      const gone = { ...facts, overriders: facts.overriders.map((p, i) => (i === index ? { ...p, now: null } : p)) };
      assert.ok(countedApprovals(gone) <= countedApprovals(facts));
    }));
  });

  it('the access table and the stage document agree: can-override is exactly "an awaited override of theirs would be approved or already counted"', () => {
    fc.assert(fc.property(callerArb, stageArb, (caller, facts) => {
      const awaiting: OverrideStageFacts = { ...facts, status: 'awaiting_override' };
      const decision = decideOverride(caller, awaiting);
      if (!caller.readsRuns) return;
      const canOverride = overrideStanding(caller, awaiting).permissions['can-override'];
      assert.equal(canOverride, decision.kind === 'approved' || decision.kind === 'already-approved', JSON.stringify(decision));
    }));
  });
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
  it('one overrider counts once, whichever of their tokens they used', () => {
    assert.equal(countedApprovals(stage({ workspaceRequiredApprovals: 3, overriders: [prior('user:a'), prior('user:b'), prior('user:a')] })), 2);
  });
  it('the stage document shows "n of N" (a team token not counted where 3 are needed) and whether it is overridable', () => {
    assert.deepEqual(overrideStanding(owner, stage({ results: [failed(2)], workspaceRequiredApprovals: 3, overriders: [prior('user:a'), prior('team:t'), prior('user:b')] })), {
      holds: { tasks: true, policies: false },
      permissions: { 'can-override-policy': true, 'can-override-tasks': true, 'can-override': true },
      isOverridable: true,
      required: 3,
      approvals: 2,
    });
    assert.equal(
      overrideStanding(owner, stage({ status: 'running', workspaceRequiredApprovals: 2, overriders: [prior('user:a', null), prior('user:b')] })).approvals,
      2,
      'a released stage keeps the count it was released with, whoever left since',
    );
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
