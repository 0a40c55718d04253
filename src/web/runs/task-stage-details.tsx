import { ActorName } from '../actors/actor-names';
import { EmptyState } from '../components/page-states';
import { OutcomesList, safeUrl } from './outcomes-list';
import { PolicyEvaluations } from './policy-evaluations';
import type { EvaluationWithSets } from './policy-findings';
import type { TaskResult, TaskStage } from './run-types';
import { StatusBadge, Time } from './status-badge';

/** A task stage's results and policy evaluations; when a mandatory check failed, a pointer to the decision at the top of the page. */
export function TaskStageDetails(props: { stage: TaskStage; results: TaskResult[]; evaluations?: EvaluationWithSets[] }) {
  const { stage, results } = props;
  const evaluations = props.evaluations ?? [];
  const overridable = stage.attributes.actions?.['is-overridable'] === true;
  const mayOverride = stage.attributes.permissions?.['can-override'] === true;
  return (
    <>
      {evaluations.length > 0 && <PolicyEvaluations stageKey={stage.attributes.stage} evaluations={evaluations} />}
      {results.length === 0 ? (
        evaluations.length === 0 && <EmptyState>No task result in this stage.</EmptyState>
      ) : (
        <ul class="results">
          {results.map((result) => (
            <TaskResultCard key={result.id} result={result} />
          ))}
        </ul>
      )}
      {(stage.attributes.overrides?.length ?? 0) > 0 && (
        <ul class="overrides" aria-label="Overrides">
          {stage.attributes.overrides!.map((override, index) => (
            <li key={index}>
              Overridden by <strong><ActorName name={override['overridden-by']} /></strong> <Time iso={override['created-at']} />
              {override.comment && <blockquote class="preserve-lines">{override.comment}</blockquote>}
            </li>
          ))}
        </ul>
      )}
      {overridable && (
        <p class="notice">
          A mandatory {evaluations.length > 0 ? 'check' : 'task'} failed: the run waits until {mayOverride ? 'someone overrides' : 'someone who manages run tasks overrides'} this
          stage, or the run is discarded.{' '}
          {mayOverride && (
            <a href="#decision" onClick={(event) => jumpToDecision(event)}>
              Decide at the top of the page
            </a>
          )}
        </p>
      )}
    </>
  );
}

function TaskResultCard(props: { result: TaskResult }) {
  const { attributes } = props.result;
  const link = safeUrl(attributes.url);
  return (
    <li class="result">
      <h4>
        {attributes['task-name']} <StatusBadge status={attributes.status} />
      </h4>
      <p class="muted">
        {attributes['workspace-task-enforcement-level'] === 'mandatory' ? 'Mandatory' : 'Advisory'} ·{' '}
        {attributes['workspace-task-enforcement-level'] === 'mandatory'
          ? 'a failure stops the run until it is overridden'
          : 'a failure is reported and the run goes on'}
      </p>
      {attributes.message ? <p class="preserve-lines message">{attributes.message}</p> : <p class="muted">No message from the task.</p>}
      {link && (
        <p>
          <a href={link} target="_blank" rel="noopener noreferrer">
            Details from {attributes['task-name']}
          </a>
        </p>
      )}
      <OutcomesList resultId={props.result.id} updatedAt={attributes['updated-at']} taskName={attributes['task-name']} />
    </li>
  );
}

/** Back to the decision banner, focused on its comment. */
function jumpToDecision(event: Event) {
  event.preventDefault();
  document.getElementById('decision')?.scrollIntoView({ block: 'start' });
  document.getElementById('decision-comment')?.focus();
}
