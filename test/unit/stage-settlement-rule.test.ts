/**
 * Stage settlement in one place (issue 35 item 1): one pure rule over one list of member facts, whatever kind
 * each member is, and exhaustive tables per kind. deriveStageStatus (stage-status.test.ts) is this rule over
 * results and evaluations; here, the rule itself over mixed kinds, and the types that make a new kind without
 * its source fail to compile.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  MEMBER_KINDS, evaluationMember, resultMember, settledStatus, type MemberFacts, type StageAsk,
} from '../../src/taskstages/stage-settlement-rule.js';
import type { StageMemberSource, StageMemberSources } from '../../src/taskstages/stage-settlement.js';
import { POLICY_EVALUATION_STATUSES, RESULT_STATUSES } from '../../src/taskstages/stage-status.js';

const ASKS: StageAsk[] = ['nothing', 'override', 'failure', 'error', 'unreachable'];
const memberArb: fc.Arbitrary<MemberFacts> = fc.oneof(
  fc.record({ kind: fc.constantFrom(...MEMBER_KINDS), state: fc.constant('open' as const) }),
  fc.record({ kind: fc.constantFrom(...MEMBER_KINDS), state: fc.constant('canceled' as const) }),
  fc.record({ kind: fc.constantFrom(...MEMBER_KINDS), state: fc.constant('final' as const), asks: fc.constantFrom(...ASKS) }),
);

describe('the settlement rule', () => {
  it('restated as a lookup, independently of the order of its checks, for any mix of kinds', () => {
    fc.assert(
      fc.property(fc.array(memberArb, { maxLength: 6 }), (members) => {
        const has = (ask: StageAsk) => members.some((m) => m.state === 'final' && m.asks === ask);
        const expected = members.some((m) => m.state === 'open') ? 'running'
          : members.some((m) => m.state === 'canceled') ? 'canceled'
            : has('failure') ? 'failed'
              : has('override') ? 'awaiting_override'
                : has('error') ? 'errored'
                  : has('unreachable') ? 'unreachable'
                    : 'passed';
        assert.equal(settledStatus(members), expected);
        assert.equal(settledStatus([...members].reverse()), expected, 'the order of members does not matter');
      }),
    );
  });

  it('a stage with no members passes', () => assert.equal(settledStatus([]), 'passed'));

  it('every result status and every evaluation status has its facts (no default)', () => {
    for (const status of RESULT_STATUSES) {
      for (const level of ['advisory', 'mandatory'] as const) {
        const facts = resultMember({ status, enforcementLevel: level });
        assert.equal(facts.kind, 'task-result');
        if (level === 'advisory' && facts.state === 'final') assert.equal(facts.asks, 'nothing', `advisory ${status} asks nothing`);
      }
    }
    for (const status of POLICY_EVALUATION_STATUSES) {
      assert.equal(evaluationMember({ status, hold: 'none' }).kind, 'policy-evaluation');
    }
    assert.deepEqual(evaluationMember({ status: 'failed', hold: 'fail' }), { kind: 'policy-evaluation', state: 'final', asks: 'failure' });
    assert.deepEqual(resultMember({ status: 'failed', enforcementLevel: 'mandatory' }), { kind: 'task-result', state: 'final', asks: 'override' });
  });

  it('settlement takes one source per member kind: leaving one out does not compile', () => {
    const source: StageMemberSource = { membersOf: async () => ({ facts: [], words: null }) };
    // @ts-expect-error a kind without its source
    const missing: StageMemberSources = { 'task-result': source };
    const complete: StageMemberSources = { 'task-result': source, 'policy-evaluation': source };
    assert.deepEqual(Object.keys(complete).sort(), [...MEMBER_KINDS].sort());
    assert.ok(missing);
  });
});
