/**
 * A run's policy evaluations as a reviewer reads them: each set's policies, which failed (with their violations)
 * or errored (with their reason), and one line per finding for the decision banner
 * ("policy no-null-resources (mandatory): 7 violations"). The shapes are /api/v2's `policy-evaluations` and
 * `policy-set-outcomes` (src/http/serializers/policies.serializer.ts, HCP's spelling). Pure and import-free, so
 * test/unit loads it directly.
 */
import type { PolicyEvaluationStatus } from '../../shared/policy-evaluation-statuses.js';

/** One policy's outcome inside a set outcome (HCP spells these keys in snake_case). */
export interface PolicyOutcomeEntry {
  policy_name: string;
  description?: string;
  enforcement_level: string;
  status: string;
  query?: string;
  output?: { print: string }[];
}

export interface ResultCount {
  'advisory-failed': number;
  'mandatory-failed': number;
  passed: number;
  errored: number;
}

export interface PolicySetOutcomeView {
  id: string;
  attributes: {
    outcomes: PolicyOutcomeEntry[] | unknown;
    error: string | null;
    overridable: boolean;
    'policy-set-name': string;
    'policy-set-description': string | null;
  };
}

export interface PolicyEvaluationView {
  id: string;
  attributes: { status: PolicyEvaluationStatus; 'result-count': ResultCount | unknown; 'created-at': string; 'updated-at': string };
}

/** An evaluation and the set outcomes it judged (empty until it has judged). */
export interface EvaluationWithSets {
  evaluation: PolicyEvaluationView;
  sets: PolicySetOutcomeView[];
}

/** A policy that did not pass: failed with its violations, or errored with its reason. */
export interface PolicyFinding {
  policy: string;
  set: string;
  level: string;
  status: 'failed' | 'errored';
  /** A failed policy's violations; an errored one's reason lines. */
  lines: string[];
}

export function outcomesOf(set: PolicySetOutcomeView): PolicyOutcomeEntry[] {
  const outcomes = set.attributes.outcomes;
  return Array.isArray(outcomes) ? (outcomes as PolicyOutcomeEntry[]) : [];
}

/** Any level but advisory can hold a stage: OPA's mandatory, Sentinel's soft- and hard-mandatory. */
export const isMandatoryFinding = (finding: PolicyFinding): boolean => finding.level !== 'advisory';

const rank = (finding: PolicyFinding) => (finding.status === 'failed' ? 0 : 2) + (isMandatoryFinding(finding) ? 0 : 1);

/**
 * Every failed or errored policy of the evaluations, worst first (mandatory failures, advisory failures, then
 * errors); a set that could not be judged at all is one errored finding named after the set.
 */
export function policyFindings(evaluations: readonly EvaluationWithSets[]): PolicyFinding[] {
  const findings: PolicyFinding[] = [];
  for (const { sets } of evaluations) {
    for (const set of sets) {
      const setName = set.attributes['policy-set-name'];
      if (set.attributes.error) {
        findings.push({ policy: setName, set: setName, level: 'mandatory', status: 'errored', lines: [set.attributes.error] });
      }
      for (const outcome of outcomesOf(set)) {
        if (outcome.status !== 'failed' && outcome.status !== 'errored') continue;
        const lines = (outcome.output ?? []).map((line) => String(line.print));
        findings.push({ policy: outcome.policy_name, set: setName, level: outcome.enforcement_level, status: outcome.status, lines });
      }
    }
  }
  return findings.sort((a, b) => rank(a) - rank(b));
}

/** The banner's words for one finding: "policy no-null-resources (mandatory): 7 violations". */
export function findingSummary(finding: PolicyFinding): string {
  if (finding.status === 'errored') return `policy ${finding.policy} (${finding.level}) errored: ${finding.lines[0] ?? 'no reason given'}`;
  const count = finding.lines.length;
  return `policy ${finding.policy} (${finding.level}): ${count} ${count === 1 ? 'violation' : 'violations'}`;
}

/** A finding's lines that match a filter (case-insensitive, on the text); all of them for an empty filter. */
export function matchingLines(finding: PolicyFinding, filter: string): string[] {
  const needle = filter.trim().toLowerCase();
  return needle ? finding.lines.filter((line) => line.toLowerCase().includes(needle)) : finding.lines;
}
