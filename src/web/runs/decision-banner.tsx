import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ErrorNotice } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { Phase, Run, TaskResult, TaskStage } from './run-types';
import { stageTitle } from './stage-names';

/**
 * The decision a run waits for, first on the page: what waits and why (the stage and its failed mandatory
 * tasks, or a plan to confirm), "n of N approvals" where the stage needs more than one, and the actions the
 * caller may take — Override, Apply, Discard — side by side with one comment that goes with whichever is
 * chosen. Someone who may not decide reads who may.
 */
export function DecisionBanner(props: {
  run: Run;
  plan?: Phase;
  stages: TaskStage[];
  results: Map<string, TaskResult[]>;
  onOverridden: (stage: TaskStage) => void;
  onActed: () => void;
}) {
  const { api } = useSession();
  const { run } = props;
  const [comment, setComment] = useState('');
  const act = useAction();
  const waiting = props.stages.find((stage) => stage.attributes.status === 'awaiting_override');
  const confirmable = run.attributes.actions['is-confirmable'];
  if (!waiting && !confirmable) return null;

  const mayOverride = !!waiting && waiting.attributes.actions?.['is-overridable'] === true && waiting.attributes.permissions?.['can-override'] === true;
  const mayApply = confirmable && run.attributes.permissions['can-apply'];
  const mayDiscard = run.attributes.actions['is-discardable'] && run.attributes.permissions['can-discard'];
  const mayAct = mayOverride || mayApply || mayDiscard;
  const failed = waiting
    ? (props.results.get(waiting.id) ?? []).filter((result) => result.attributes['workspace-task-enforcement-level'] === 'mandatory' && result.attributes.status === 'failed')
    : [];
  const approvals = waiting ? approvalsOf(waiting) : null;
  const sentComment = () => comment.trim() || null;

  async function override() {
    if (!waiting) return;
    let answered: Document<TaskStage['attributes']> | undefined;
    const done = await act.run(async () => {
      answered = await api.post<Document<TaskStage['attributes']>>(`/task-stages/${segment(waiting.id)}/actions/override`, { comment: sentComment() });
    }, 'Override recorded. The page follows the run.');
    if (done && answered) {
      setComment('');
      props.onOverridden(answered.data as TaskStage);
    }
  }
  async function runAction(action: 'apply' | 'discard', label: string) {
    const done = await act.run(() => api.post(`/runs/${segment(run.id)}/actions/${action}`, { comment: sentComment() }), `${label}: asked. The page follows the run.`);
    if (done) {
      setComment('');
      props.onActed();
    }
  }

  const plan = props.plan?.attributes;
  return (
    <section class="decision" aria-labelledby="decision-heading" id="decision">
      <h2 id="decision-heading">{mayAct ? 'Your decision is needed' : 'Waiting for a decision'}</h2>
      {waiting ? (
        <p class="decision-why">
          <strong>{stageTitle(waiting.attributes.stage)}:</strong>{' '}
          {failed.length > 0
            ? `${failed.length === 1 ? 'the mandatory task' : 'the mandatory tasks'} ${failed.map((result) => result.attributes['task-name']).join(', ')} failed`
            : 'a mandatory task failed'}
          {failed[0]?.attributes.message ? (
            <>
              : <q class="task-message">{firstLine(failed[0].attributes.message)}</q>.
            </>
          ) : (
            '.'
          )}{' '}
          The run goes on only when {approvals && approvals.required > 1 ? `${approvals.required} people override it` : 'someone overrides it'}, or it is discarded.{' '}
          <a href={`#step-${waiting.attributes.stage}`} onClick={(event) => jumpTo(event, `step-${waiting.attributes.stage}`)}>
            Read the results
          </a>
        </p>
      ) : (
        <p class="decision-why">
          <strong>The plan is ready to apply</strong>
          {plan && ` (+${plan['resource-additions']} to add, ~${plan['resource-changes']} to change, −${plan['resource-destructions']} to destroy)`}.
        </p>
      )}
      {approvals && approvals.required > 1 && (
        <p class="approvals" data-testid="approvals">
          <strong>
            {approvals.given} of {approvals.required} approvals
          </strong>
        </p>
      )}
      {mayAct ? (
        <div class="decision-form">
          <label for="decision-comment">Comment (optional, recorded with your decision)</label>
          <textarea id="decision-comment" rows={2} value={comment} onInput={(event) => setComment((event.target as HTMLTextAreaElement).value)} />
          <div class="inline-form">
            {mayOverride && (
              <button type="button" disabled={act.busy} onClick={() => void override()}>
                Override
              </button>
            )}
            {mayApply && (
              <button type="button" disabled={act.busy} onClick={() => void runAction('apply', 'Apply')}>
                Apply
              </button>
            )}
            {mayDiscard && (
              <button type="button" class="danger" disabled={act.busy} onClick={() => void runAction('discard', 'Discard')}>
                Discard
              </button>
            )}
          </div>
        </div>
      ) : (
        <p class="muted">
          {waiting
            ? 'Someone who manages run tasks (or an owner) may override this stage; the run may also be discarded.'
            : 'Someone who may apply runs in this workspace confirms or discards the plan.'}
        </p>
      )}
      {act.message && (
        <p role="status" class="notice notice-ok">
          {act.message}
        </p>
      )}
      {act.error && <ErrorNotice error={act.error} what="run" />}
    </section>
  );
}

/** "n of N approvals": the stage's `required-approvals` and `approvals` (distinct overriders so far), when the server gives them. */
function approvalsOf(stage: TaskStage): { given: number; required: number } | null {
  const required = stage.attributes['required-approvals'];
  if (typeof required !== 'number') return null;
  const given = stage.attributes.approvals;
  return { required, given: typeof given === 'number' ? given : 0 };
}

/** A task's message, shortened to its first line for the banner (the results below show it whole). */
function firstLine(message: string): string {
  const line = message.split('\n')[0]!.trim();
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/** Moves focus (and the view) to a step without a history entry for the fragment. */
function jumpTo(event: Event, id: string) {
  event.preventDefault();
  const target = document.getElementById(id);
  target?.scrollIntoView({ block: 'start' });
  target?.focus();
}
