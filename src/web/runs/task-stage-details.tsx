import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { EmptyState, ErrorNotice } from '../components/page-states';
import { useSession } from '../session/session-context';
import { OutcomesList, safeUrl } from './outcomes-list';
import type { TaskResult, TaskStage } from './run-types';
import { StatusBadge } from './status-badge';

/** A task stage's results, and the override a person may give when a mandatory task failed. */
export function TaskStageDetails(props: { stage: TaskStage; results: TaskResult[]; onOverridden: (stage: TaskStage) => void }) {
  const { stage, results } = props;
  const overridable = stage.attributes.actions?.['is-overridable'] === true;
  const mayOverride = stage.attributes.permissions?.['can-override'] === true;
  return (
    <>
      {results.length === 0 ? (
        <EmptyState>No task result in this stage.</EmptyState>
      ) : (
        <ul class="results">
          {results.map((result) => (
            <TaskResultCard key={result.id} result={result} />
          ))}
        </ul>
      )}
      {overridable && mayOverride && <OverrideForm stage={stage} onOverridden={props.onOverridden} />}
      {overridable && !mayOverride && (
        <p class="notice">
          A mandatory task failed: the run waits until someone who manages run tasks overrides this stage, or the run is
          discarded.
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
      <OutcomesList resultId={props.result.id} updatedAt={attributes['updated-at']} />
    </li>
  );
}

/** Override with an optional comment: `POST /task-stages/:id/actions/override`. */
function OverrideForm(props: { stage: TaskStage; onOverridden: (stage: TaskStage) => void }) {
  const { api } = useSession();
  const [comment, setComment] = useState('');
  const override = useAction();
  const id = `override-comment-${props.stage.id}`;
  async function submit(event: Event) {
    event.preventDefault();
    let answered: Document<TaskStage['attributes']> | undefined;
    const done = await override.run(async () => {
      answered = await api.post<Document<TaskStage['attributes']>>(`/task-stages/${segment(props.stage.id)}/actions/override`, {
        comment: comment.trim() || null,
      });
    });
    if (done && answered) props.onOverridden(answered.data as TaskStage);
  }
  return (
    <form class="override stacked" onSubmit={submit}>
      <p>
        <strong>A mandatory task failed.</strong> Read its message and outcomes; overriding lets the run go on as if the stage
        passed.
      </p>
      <label for={id}>Override comment (optional)</label>
      <textarea id={id} rows={2} cols={50} value={comment} onInput={(event) => setComment((event.target as HTMLTextAreaElement).value)} />
      <button type="submit" disabled={override.busy}>
        Override
      </button>
      {override.error && <ErrorNotice error={override.error} what="task stage" />}
    </form>
  );
}
