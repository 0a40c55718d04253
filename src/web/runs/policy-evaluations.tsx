import { useState } from 'preact/hooks';
import { matchingLines, outcomesOf, type EvaluationWithSets, type PolicyFinding, type PolicyOutcomeEntry, type ResultCount } from './policy-findings';
import { StatusBadge } from './status-badge';

/** Violations shown at first for each policy; the rest behind "Show all". */
const FIRST_FEW = 5;

type Shown = 'problems' | 'mandatory' | 'all';

/**
 * The policy evaluations of a task stage: each with its status and counts, each set with whether it may be
 * overridden, each policy with its enforcement level; a failed policy lists its violations (the first few,
 * the rest a click away), an errored one its reason. A filter narrows the policies shown and the violations
 * by their text, as a reviewer of a plan with many findings needs.
 */
export function PolicyEvaluations(props: { stageKey: string; evaluations: EvaluationWithSets[] }) {
  const [shown, setShown] = useState<Shown>('problems');
  const [filter, setFilter] = useState('');
  if (props.evaluations.length === 0) return null;
  const idPrefix = `policies-${props.stageKey}`;
  const anyOutcome = props.evaluations.some(({ sets }) => sets.some((set) => outcomesOf(set).length > 0));
  return (
    <section class="policies" aria-labelledby={`${idPrefix}-heading`}>
      <h4 id={`${idPrefix}-heading`}>Policies</h4>
      {anyOutcome && (
        <div class="inline-form policy-filters">
          <label for={`${idPrefix}-shown`}>Show</label>
          <select id={`${idPrefix}-shown`} value={shown} onChange={(event) => setShown((event.target as HTMLSelectElement).value as Shown)}>
            <option value="problems">Failed and errored policies</option>
            <option value="mandatory">Mandatory policies only</option>
            <option value="all">All policies</option>
          </select>
          <label for={`${idPrefix}-filter`}>Filter violations</label>
          <input id={`${idPrefix}-filter`} type="search" value={filter} onInput={(event) => setFilter((event.target as HTMLInputElement).value)} />
        </div>
      )}
      {props.evaluations.map(({ evaluation, sets }) => (
        <div key={evaluation.id} class="policy-evaluation">
          <p>
            <strong>Policy evaluation</strong> <StatusBadge status={evaluation.attributes.status} />{' '}
            <span class="muted">{countsText(evaluation.attributes['result-count'])}</span>
          </p>
          {sets.length === 0 && <p class="muted">No policy set has been judged yet.</p>}
          {sets.map((set) => {
            const outcomes = outcomesOf(set)
              .filter((outcome) => isShown(outcome, shown))
              .sort((a, b) => outcomeRank(a) - outcomeRank(b));
            return (
              <div key={set.id} class="policy-set">
                <h5>
                  Policy set {set.attributes['policy-set-name']}{' '}
                  <span class="muted">({set.attributes.overridable ? 'may be overridden' : 'may not be overridden'})</span>
                </h5>
                {set.attributes.error && (
                  <p class="notice notice-error preserve-lines">
                    <strong>The set could not be judged:</strong> {set.attributes.error}
                  </p>
                )}
                {outcomes.length === 0 ? (
                  <p class="muted">{outcomesOf(set).length === 0 ? 'No policy in this set.' : 'Every policy of this set passed.'}</p>
                ) : (
                  <ul class="results">
                    {outcomes.map((outcome, index) => (
                      <PolicyOutcomeCard key={`${outcome.policy_name}-${index}`} outcome={outcome} setName={set.attributes['policy-set-name']} filter={filter} />
                    ))}
                  </ul>
                )}
              </div>
            );
          })}
        </div>
      ))}
    </section>
  );
}

/** Worst first: mandatory failures, advisory failures, errors, then what passed. */
function outcomeRank(outcome: PolicyOutcomeEntry): number {
  const status = outcome.status === 'failed' ? 0 : outcome.status === 'errored' ? 2 : 4;
  return status + (outcome.enforcement_level === 'mandatory' ? 0 : 1);
}

function isShown(outcome: PolicyOutcomeEntry, shown: Shown): boolean {
  if (shown === 'all') return true;
  if (shown === 'mandatory') return outcome.enforcement_level === 'mandatory';
  return outcome.status === 'failed' || outcome.status === 'errored';
}

function PolicyOutcomeCard(props: { outcome: PolicyOutcomeEntry; setName: string; filter: string }) {
  const { outcome } = props;
  const [expanded, setExpanded] = useState(false);
  const finding: PolicyFinding = {
    policy: outcome.policy_name,
    set: props.setName,
    level: outcome.enforcement_level,
    status: outcome.status === 'errored' ? 'errored' : 'failed',
    lines: (outcome.output ?? []).map((line) => String(line.print)),
  };
  const lines = matchingLines(finding, props.filter);
  const visible = expanded ? lines : lines.slice(0, FIRST_FEW);
  const mandatory = outcome.enforcement_level === 'mandatory';
  return (
    <li class="result policy-outcome">
      <h6>
        policy {outcome.policy_name} <StatusBadge status={outcome.status} /> <span class="muted">{mandatory ? 'Mandatory' : 'Advisory'}</span>
      </h6>
      {outcome.description && <p class="muted">{outcome.description}</p>}
      {outcome.status === 'failed' && (
        <>
          <p>
            <strong>
              {finding.lines.length} {finding.lines.length === 1 ? 'violation' : 'violations'}
            </strong>
            {props.filter.trim() && <span class="muted"> ({lines.length} match the filter)</span>}
            {mandatory ? ' · a failure stops the run until it is overridden' : ' · reported; the run goes on'}
          </p>
          <ul class="violations" aria-label={`Violations of ${outcome.policy_name}`}>
            {visible.map((line, index) => (
              <li key={index} class="preserve-lines">
                {line}
              </li>
            ))}
          </ul>
        </>
      )}
      {outcome.status === 'errored' && (
        <p class="preserve-lines message">
          <strong>Why it errored:</strong> {finding.lines.join('\n') || 'no reason given'}
        </p>
      )}
      {outcome.status === 'failed' && lines.length > FIRST_FEW && (
        <button type="button" class="secondary small" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? `Show the first ${FIRST_FEW} only` : `Show all ${lines.length} (${lines.length - FIRST_FEW} more)`}
        </button>
      )}
    </li>
  );
}

function countsText(count: ResultCount | unknown): string {
  if (!count || typeof count !== 'object') return '';
  const value = count as ResultCount;
  return [
    `${value['mandatory-failed']} mandatory failed`,
    `${value['advisory-failed']} advisory failed`,
    `${value.errored} errored`,
    `${value.passed} passed`,
  ].join(' · ');
}
