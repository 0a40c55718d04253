/**
 * The decision panel's pure models (src/web/runs): policy findings worst first with the banner's words, the
 * violation filter, and whether the reader is offered Override (the shared override rule's answer: someone
 * who already counts is not, and is told why).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findingSummary, isMandatoryFinding, matchingLines, policyFindings, type EvaluationWithSets } from '../../src/web/runs/policy-findings.js';
import { overrideOffer, type OfferStage } from '../../src/web/runs/override-offer.js';

const outcome = (policy: string, level: string, status: string, prints: string[]) => ({
  policy_name: policy, enforcement_level: level, status, output: prints.map((print) => ({ print })),
});

function evaluation(sets: { name: string; error?: string; outcomes: unknown[] }[]): EvaluationWithSets {
  return {
    evaluation: { id: 'poleval-1', attributes: { status: 'failed', 'result-count': {}, 'created-at': '', 'updated-at': '' } },
    sets: sets.map((set, index) => ({
      id: `polsetout-${index}`,
      attributes: { outcomes: set.outcomes, error: set.error ?? null, overridable: true, 'policy-set-name': set.name, 'policy-set-description': null },
    })),
  };
}

test('policy findings: mandatory failures first, then advisory ones, then errors; a set that could not be judged is one; passes left out', () => {
  const findings = policyFindings([
    evaluation([
      { name: 'gate', outcomes: [outcome('tags', 'advisory', 'failed', ['x untagged']), outcome('shape', 'mandatory', 'errored', ['must give an array']), outcome('ok', 'mandatory', 'passed', [])] },
      { name: 'broken', error: 'no plan JSON', outcomes: [] },
      { name: 'nulls', outcomes: [outcome('no-null-resources', 'mandatory', 'failed', ['a', 'b', 'c', 'd', 'e', 'f', 'g'])] },
    ]),
  ]);
  assert.deepEqual(findings.map(findingSummary), [
    'policy no-null-resources (mandatory): 7 violations',
    'policy tags (advisory): 1 violation',
    'policy shape (mandatory) errored: must give an array',
    'policy broken (mandatory) errored: no plan JSON',
  ]);
  assert.deepEqual(matchingLines(findings[0]!, ' B '), ['b']);
  assert.equal(matchingLines(findings[0]!, '').length, 7);
  assert.deepEqual(policyFindings([evaluation([{ name: 'odd', outcomes: 'not a list' as unknown as unknown[] }])]), []);
});

test('policy findings: Sentinel soft- and hard-mandatory policies hold the stage like mandatory ones; advisory ones do not', () => {
  const findings = policyFindings([
    evaluation([{ name: 'sentinel', outcomes: [outcome('warn', 'advisory', 'errored', ['Sentinel is not available; use OPA']), outcome('soft', 'soft-mandatory', 'errored', ['Sentinel is not available; use OPA'])] }]),
  ]);
  assert.deepEqual(findings.map((finding) => [finding.policy, isMandatoryFinding(finding)]), [['soft', true], ['warn', false]]);
  assert.equal(findingSummary(findings[0]!), 'policy soft (soft-mandatory) errored: Sentinel is not available; use OPA');
});

const awaiting = (overrides: Partial<OfferStage> = {}): OfferStage => ({
  status: 'awaiting_override',
  permissions: { 'can-override': true },
  requiredApprovals: 2,
  overriders: [],
  results: [{ status: 'failed', enforcementLevel: 'mandatory' }],
  evaluationStatuses: [],
  ...overrides,
});

test('Override is offered to someone who may and does not count yet; not to one who already counts, nor without the right, nor off awaiting', () => {
  assert.deepEqual(overrideOffer(awaiting(), 'user:alice'), { offer: true });
  assert.deepEqual(overrideOffer(awaiting({ overriders: ['user:alice'] }), 'user:bob'), { offer: true });
  assert.deepEqual(overrideOffer(awaiting({ overriders: ['user:alice'] }), 'user:alice'), { offer: false, reason: 'already-approved' });
  assert.deepEqual(overrideOffer(awaiting({ permissions: { 'can-override': false } }), 'user:alice'), { offer: false, reason: 'not-allowed' });
  assert.deepEqual(overrideOffer(awaiting({ status: 'passed' }), 'user:alice'), { offer: false, reason: 'not-awaiting' });
  // A stage held by a policy alone: the server's right to override decides, whatever holds it.
  assert.deepEqual(overrideOffer(awaiting({ results: [], evaluationStatuses: ['failed'] }), 'user:alice'), { offer: true });
});
