import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ConfirmAction } from '../components/confirm-action';
import { ErrorNotice } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { RunTask } from '../workspaces/workspace-types';
import { RunTaskForm } from './run-task-form';

/** Edit (a form that opens in place) and delete (confirmed, by name) of one run task, for those who manage run tasks. */
export function RunTaskControls(props: { organization: string; task: RunTask; attached: number; onChanged: () => void }) {
  const { api } = useSession();
  const [confirming, setConfirming] = useState(false);
  const remove = useAction();
  const name = props.task.attributes.name;
  async function confirm() {
    setConfirming(false);
    const done = await remove.run(() => api.delete(`/tasks/${segment(props.task.id)}`));
    if (done) props.onChanged();
  }
  return (
    <div class="task-controls">
      <details class="edit">
        <summary>Edit {name}</summary>
        <RunTaskForm organization={props.organization} task={props.task} onSaved={props.onChanged} />
      </details>
      {confirming ? (
        <ConfirmAction question={`Delete the run task ${name}?`} confirmLabel={`Delete ${name} now`} busy={remove.busy} onConfirm={() => void confirm()} onCancel={() => setConfirming(false)} />
      ) : (
        <button type="button" class="danger small" onClick={() => setConfirming(true)} aria-label={`Delete ${name}`}>
          Delete
        </button>
      )}
      {props.attached > 0 && !confirming && <span class="muted"> Detach it from its workspaces first: a task in use cannot be deleted.</span>}
      {remove.error && <ErrorNotice error={remove.error} what="run task" />}
    </div>
  );
}
