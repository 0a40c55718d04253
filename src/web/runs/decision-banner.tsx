import { ActorName } from '../actors/actor-names';
import { useEffect, useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document, ListDocument } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ConfirmAction } from '../components/confirm-action';
import { ErrorNotice } from '../components/page-states';
import { useSession } from '../session/session-context';
import { FailedChecksList, failedChecks, firstLine } from './failed-checks';
import { overrideOffer } from './override-offer';
import { findingSummary, isMandatoryFinding, policyFindings, type EvaluationWithSets } from './policy-findings';
import type { Phase, Run, TaskResult, TaskStage } from './run-types';
import { stageTitle } from './stage-names';
import { Time } from './status-badge';
import { WorkspaceLockNote, type LockedWorkspace } from './workspace-lock-note';

/**
 * The decision a run waits for, first on the page: what waits and why (every check that did not pass, tasks
 * and policies, mandatory first), who has approved so far with their comment, and the actions the reader may
 * take — Override, Apply, Discard — with one comment that goes with whichever is chosen. Apply and Discard ask
 * once more, quoting the comment. Someone who already counts among the approvers is not offered a second
 * Override (the override rule's answer) and reads why; someone who may not decide reads who may. The runs
 * queued behind this one in its workspace are counted, since they wait for this decision too.
 */
export function DecisionBanner(props: {
  run: Run;
  plan?: Phase;
  stages: TaskStage[];
  results: Map<string, TaskResult[]>;
  policies: Map<string, EvaluationWithSets[]>;
  workspaceId?: string;
  /** The run's workspace (`include=workspace`): whether it is locked, and by whom. */
  workspace?: LockedWorkspace;
  onOverridden: (stage: TaskStage) => void;
  onActed: () => void;
}) {
  const { api, account } = useSession();
  const { run } = props;
  const [comment, setComment] = useState('');
  const [confirming, setConfirming] = useState<'apply' | 'discard' | null>(null);
  const act = useAction();
  const waiting = props.stages.find((stage) => stage.attributes.status === 'awaiting_override');
  const confirmable = run.attributes.actions['is-confirmable'];
  const queued = useQueueBehind(props.workspaceId, run.id, !!(waiting || confirmable));
  if (!waiting && !confirmable) return null;

  const offer = waiting
    ? overrideOffer(
        {
          status: waiting.attributes.status,
          permissions: waiting.attributes.permissions,
          requiredApprovals: waiting.attributes['required-approvals'],
          overriders: (waiting.attributes.overrides ?? []).map((override) => override.overrider ?? override['overridden-by']),
          results: (props.results.get(waiting.id) ?? []).map((result) => ({ status: result.attributes.status, enforcementLevel: result.attributes['workspace-task-enforcement-level'] })),
          evaluationStatuses: (props.policies.get(waiting.id) ?? []).map(({ evaluation }) => evaluation.attributes.status),
        },
        `user:${account.id}`,
      )
    : null;
  const mayOverride = offer?.offer === true;
  const mayApply = confirmable && run.attributes.permissions['can-apply'];
  const mayDiscard = run.attributes.actions['is-discardable'] && run.attributes.permissions['can-discard'];
  const mayAct = mayOverride || mayApply || mayDiscard;
  const failedTasks = waiting
    ? (props.results.get(waiting.id) ?? []).filter((result) => result.attributes['workspace-task-enforcement-level'] === 'mandatory' && result.attributes.status === 'failed')
    : [];
  // The policies that hold the stage: mandatory failures first, then what errored (advisory failures only warn).
  const heldBy = waiting ? policyFindings(props.policies.get(waiting.id) ?? []).filter(isMandatoryFinding) : [];
  const checks = failedChecks(props.stages, props.results, props.policies);
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
    setConfirming(null);
    if (done) {
      setComment('');
      props.onActed();
    }
  }
  const withComment = sentComment() ? ` with the comment “${sentComment()}”` : ' without a comment';

  const plan = props.plan?.attributes;
  return (
    <section class="decision" aria-labelledby="decision-heading" id="decision">
      <h2 id="decision-heading">{mayAct ? 'Your decision is needed' : 'Waiting for a decision'}</h2>
      {waiting ? (
        <p class="decision-why">
          <strong>{stageTitle(waiting.attributes.stage)}:</strong>{' '}
          {failedTasks.length > 0 &&
            `${failedTasks.length === 1 ? 'the mandatory task' : 'the mandatory tasks'} ${failedTasks.map((result) => result.attributes['task-name']).join(', ')} failed`}
          {failedTasks[0]?.attributes.message && (
            <>
              : <q class="task-message">{firstLine(failedTasks[0].attributes.message)}</q>
            </>
          )}
          {failedTasks.length > 0 && heldBy.length > 0 && '; '}
          {heldBy.length > 0 && <span data-testid="policy-findings">{heldBy.map(findingSummary).join('; ')}</span>}
          {failedTasks.length === 0 && heldBy.length === 0 && 'a mandatory check failed'}.{' '}
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
      <FailedChecksList checks={checks} />
      {waiting && approvals && (approvals.required > 1 || (waiting.attributes.overrides?.length ?? 0) > 0) && (
        <div class="approvals" data-testid="approvals">
          <p>
            <strong>
              {approvals.given} of {approvals.required} {approvals.required === 1 ? 'approval' : 'approvals'}
            </strong>
          </p>
          {(waiting.attributes.overrides?.length ?? 0) > 0 && (
            <ul aria-label="Approved by">
              {waiting.attributes.overrides!.map((given, index) => (
                <li key={index}>
                  Approved by <strong><ActorName name={given['overridden-by']} /></strong> <Time iso={given['created-at']} />
                  {given.comment ? <q class="approval-comment">{given.comment}</q> : <span class="muted"> (no comment)</span>}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {offer && !offer.offer && offer.reason === 'already-approved' && (
        <p class="notice" data-testid="already-approved">
          You have approved this stage already, and one person counts once: it needs{' '}
          {approvals ? `${Math.max(1, approvals.required - approvals.given)} more ${approvals.required - approvals.given === 1 ? 'person' : 'people'}` : 'another person'} to
          override it.
        </p>
      )}
      <WorkspaceLockNote workspace={props.workspace} queued={queued} />
      {queued !== null && queued > 0 && !props.workspace?.attributes.locked && (
        <p class="muted" data-testid="queue-behind">
          {queued} {queued === 1 ? 'run waits' : 'runs wait'} behind this one in the workspace's queue.
        </p>
      )}
      {mayAct ? (
        <div class="decision-form">
          <label for="decision-comment">Comment (optional, recorded with your decision)</label>
          <textarea id="decision-comment" rows={2} value={comment} onInput={(event) => setComment((event.target as HTMLTextAreaElement).value)} />
          {confirming ? (
            <ConfirmAction
              question={`${confirming === 'apply' ? 'Apply this run' : 'Discard this run'}${withComment}?`}
              confirmLabel={confirming === 'apply' ? 'Apply now' : 'Discard now'}
              busy={act.busy}
              onConfirm={() => void runAction(confirming, confirming === 'apply' ? 'Apply' : 'Discard')}
              onCancel={() => setConfirming(null)}
            />
          ) : (
            <div class="inline-form">
              {mayOverride && (
                <button type="button" disabled={act.busy} onClick={() => void override()}>
                  Override
                </button>
              )}
              {mayApply && (
                <button type="button" disabled={act.busy} onClick={() => setConfirming('apply')}>
                  Apply
                </button>
              )}
              {mayDiscard && (
                <button type="button" class="danger" disabled={act.busy} onClick={() => setConfirming('discard')}>
                  Discard
                </button>
              )}
            </div>
          )}
        </div>
      ) : (
        offer?.offer !== false || offer.reason !== 'already-approved' ? (
          <p class="muted">
            {waiting
              ? 'Someone who manages run tasks or policy overrides (or an owner) may override this stage; the run may also be discarded.'
              : 'Someone who may apply runs in this workspace confirms or discards the plan.'}
          </p>
        ) : null
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

/** Runs of the workspace queued behind this one (pending), read once per decision; null until known or when not readable. */
function useQueueBehind(workspaceId: string | undefined, runId: string, deciding: boolean): number | null {
  const { api } = useSession();
  const [count, setCount] = useState<number | null>(null);
  useEffect(() => {
    if (!workspaceId || !deciding) return;
    let current = true;
    api
      .get<ListDocument>(`/workspaces/${segment(workspaceId)}/runs`, { 'filter[status]': 'pending', 'page[size]': '1' })
      .then(
        (document) => current && setCount(document.meta?.pagination?.['total-count'] ?? document.data.length),
        () => current && setCount(null),
      );
    return () => {
      current = false;
    };
  }, [workspaceId, runId, deciding]);
  return count;
}

/** "n of N approvals": the stage's `required-approvals` and `approvals` (distinct overriders so far), when the server gives them. */
function approvalsOf(stage: TaskStage): { given: number; required: number } | null {
  const required = stage.attributes['required-approvals'];
  if (typeof required !== 'number') return null;
  const given = stage.attributes.approvals;
  return { required, given: typeof given === 'number' ? given : 0 };
}

/** Moves focus (and the view) to a step without a history entry for the fragment. */
function jumpTo(event: Event, id: string) {
  event.preventDefault();
  const target = document.getElementById(id);
  target?.scrollIntoView({ block: 'start' });
  target?.focus();
}
