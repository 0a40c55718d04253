import { PhaseDetails } from './phase-details';
import { statusWords } from './status-words';
import { stepDuration, type TimelineStep } from './run-timeline-model';
import type { EvaluationWithSets } from './policy-findings';
import type { Phase, TaskResult, TaskStage } from './run-types';
import { StatusBadge, Time } from './status-badge';
import { TaskStageDetails } from './task-stage-details';

/**
 * The run's six steps in order, each with its status, start, end and duration; a task stage shows its
 * results (and the override), a phase its resource counts and log. A step the run does not have (no
 * run task at that stage) is listed as such, so the order is always the same.
 */
export function RunTimeline(props: {
  steps: TimelineStep<TaskStage, Phase>[];
  results: Map<string, TaskResult[]>;
  policies?: Map<string, EvaluationWithSets[]>;
  now: number;
  /** The run is final: a step still pending (or unreachable) will never run, and says so in grey. */
  runFinal: boolean;
}) {
  return (
    <ol class="timeline">
      {props.steps.map((step) => {
        const duration = stepDuration(step, props.now);
        const headingId = `step-${step.key}`;
        return (
          <li key={step.key} class={step.status === null ? 'step step-absent' : 'step'}>
            <h3 id={headingId} tabIndex={-1}>
              <span class="step-label">{step.label}</span> {step.status !== null ? (
                <StatusBadge status={step.status} label={notReached(step, props.runFinal) ? 'not reached' : undefined} />
              ) : <span class="muted">— no run task at this stage</span>}
            </h3>
            {step.status !== null && (
              <>
                <dl class="facts step-facts">
                  <dt>Started</dt>
                  <dd>
                    <Time iso={step.startedAt} />
                  </dd>
                  <dt>Ended</dt>
                  <dd>{step.endedAt ? <Time iso={step.endedAt} /> : <span class="muted">{step.startedAt ? 'not yet' : '—'}</span>}</dd>
                  <dt>Duration</dt>
                  <dd>{duration ? (duration.running ? `${duration.text} so far` : duration.text) : '—'}</dd>
                </dl>
                <StatusHistory timestamps={step.timestamps} />
                {step.stage && (
                  <TaskStageDetails stage={step.stage} results={props.results.get(step.stage.id) ?? []} evaluations={props.policies?.get(step.stage.id)} />
                )}
                {step.phase && <PhaseDetails phase={step.phase} kind={step.key === 'plan' ? 'plan' : 'apply'} />}
              </>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** A step the run never got to: pending in a run that is over, or unreachable (a plan-only run's apply). */
function notReached(step: TimelineStep, runFinal: boolean): boolean {
  return step.status === 'unreachable' || (runFinal && step.status === 'pending');
}

/** Every status the step entered and when ("awaiting override at …, running at …"), oldest first. */
function StatusHistory(props: { timestamps: Record<string, string | undefined> }) {
  const entries = Object.entries(props.timestamps)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0].endsWith('-at'))
    .sort((a, b) => Date.parse(a[1]) - Date.parse(b[1]));
  if (entries.length === 0) return null;
  return (
    <p class="muted history">
      {entries.map(([key, iso], index) => (
        <span key={key}>
          {index > 0 && ' · '}
          {statusWords(key.slice(0, -3).replace(/-/g, '_'))} <Time iso={iso} />
        </span>
      ))}
    </p>
  );
}
