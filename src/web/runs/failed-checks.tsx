import { findingSummary, policyFindings, type EvaluationWithSets } from './policy-findings';
import type { TaskResult, TaskStage } from './run-types';
import { stageTitle } from './stage-names';

/** One check that did not pass, as the decision panel lists it. */
export interface FailedCheck {
  key: string;
  mandatory: boolean;
  /** "task security-scan failed: …", "policy no-null-resources (mandatory): 7 violations". */
  text: string;
  stage: string;
  /** A failed policy's first violations, so the reviewer reads what is wrong before deciding; `more` counts the rest. */
  preview?: { lines: string[]; more: number };
}

/** Violations of a policy quoted in the decision panel; the stage below lists them all. */
const PREVIEW_LINES = 3;

/**
 * Every check of the run that did not pass, tasks and policies, mandatory ones first (they hold the run; the
 * advisory ones only warn), each with its stage and its first line of explanation.
 */
export function failedChecks(stages: TaskStage[], results: Map<string, TaskResult[]>, policies: Map<string, EvaluationWithSets[]>): FailedCheck[] {
  const checks: FailedCheck[] = [];
  for (const stage of stages) {
    for (const result of results.get(stage.id) ?? []) {
      const status = result.attributes.status;
      if (status !== 'failed' && status !== 'errored' && status !== 'unreachable') continue;
      const mandatory = result.attributes['workspace-task-enforcement-level'] === 'mandatory';
      const message = result.attributes.message ? `: ${firstLine(result.attributes.message)}` : '';
      checks.push({ key: result.id, mandatory, stage: stage.attributes.stage, text: `task ${result.attributes['task-name']} (${mandatory ? 'mandatory' : 'advisory'}) ${status}${message}` });
    }
    policyFindings(policies.get(stage.id) ?? []).forEach((finding, index) => {
      const mandatory = finding.level === 'mandatory';
      const preview = mandatory && finding.status === 'failed' ? { lines: finding.lines.slice(0, PREVIEW_LINES), more: Math.max(0, finding.lines.length - PREVIEW_LINES) } : undefined;
      checks.push({ key: `${stage.id}-policy-${index}`, mandatory, stage: stage.attributes.stage, text: findingSummary(finding), preview });
    });
  }
  return checks.sort((a, b) => Number(b.mandatory) - Number(a.mandatory));
}

export function FailedChecksList(props: { checks: FailedCheck[] }) {
  if (props.checks.length === 0) return null;
  const mandatory = props.checks.filter((check) => check.mandatory).length;
  return (
    <div class="failed-checks">
      <p>
        <strong>
          {props.checks.length} {props.checks.length === 1 ? 'check' : 'checks'} did not pass
        </strong>{' '}
        <span class="muted">
          ({mandatory} mandatory, {props.checks.length - mandatory} advisory)
        </span>
      </p>
      <ul aria-label="Checks that did not pass">
        {props.checks.map((check) => (
          <li key={check.key}>
            <span class={`tag tag-${check.mandatory ? 'error' : 'warning'}`}>{check.mandatory ? 'Mandatory' : 'Advisory'}</span>{' '}
            <span class="muted">{stageTitle(check.stage)}:</span> {check.text}
            {check.preview && (
              <>
                <ul class="violations" aria-label={`First violations: ${check.text}`}>
                  {check.preview.lines.map((line, index) => (
                    <li key={index}>{line}</li>
                  ))}
                </ul>
                {check.preview.more > 0 && (
                  <a href={`#step-${check.stage}`} class="small-link" onClick={(event) => jumpToStep(event, `step-${check.stage}`)}>
                    and {check.preview.more} more in {stageTitle(check.stage).toLowerCase()}
                  </a>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Moves focus (and the view) to a step without a history entry for the fragment. */
function jumpToStep(event: Event, id: string) {
  event.preventDefault();
  const target = document.getElementById(id);
  target?.scrollIntoView({ block: 'start' });
  target?.focus();
}

/** A message shortened to its first line (the results below show it whole). */
export function firstLine(message: string): string {
  const line = message.split('\n')[0]!.trim();
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}
