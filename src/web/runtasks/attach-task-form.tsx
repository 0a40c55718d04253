import { useState } from 'preact/hooks';
import { DEFAULT_STAGES, TASK_STAGE_ORDER, type TaskStageName } from '../../shared/stage-order.js';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ActionOutcome, CheckboxGroup, refuses, SubmitButton } from '../components/form-parts';
import { FieldErrors } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { RunTask } from '../workspaces/workspace-types';
import type { EnforcementLevel } from '../../shared/enforcement-levels.js';

/** What each stage means to the person choosing it; the order is the server's (src/shared/stage-order.ts). */
const STAGE_HINTS: Record<TaskStageName, string> = {
  pre_plan: 'Pre-plan: before terraform plans',
  post_plan: 'Post-plan: on the plan, before anyone applies it',
  pre_apply: 'Pre-apply: just before the apply',
  post_apply: 'Post-apply: after the apply',
};
const STAGES = TASK_STAGE_ORDER.map((value) => ({ value, label: STAGE_HINTS[value] }));

/** Attaches one of the organization's run tasks to the workspace (`POST /workspaces/:id/tasks`) at chosen stages, advisory or mandatory. */
export function AttachTaskForm(props: { workspaceId: string; tasks: RunTask[]; onAttached: () => void }) {
  const { api } = useSession();
  const [taskId, setTaskId] = useState('');
  const [stages, setStages] = useState<string[]>([...DEFAULT_STAGES]);
  const [level, setLevel] = useState<EnforcementLevel>('mandatory');
  const attach = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const done = await attach.run(
      () =>
        api.post(`/workspaces/${segment(props.workspaceId)}/tasks`, {
          data: {
            type: 'workspace-tasks',
            attributes: { 'enforcement-level': level, stages },
            relationships: { task: { data: { type: 'tasks', id: taskId } } },
          },
        }),
      'Run task attached.',
    );
    if (done) {
      setTaskId('');
      props.onAttached();
    }
  }
  if (props.tasks.length === 0) return <p class="muted">Every run task of the organization is attached here, or it has none yet (see its run tasks page).</p>;
  const stagesError = refuses(attach.error, 'stages');
  return (
    <form class="stacked" onSubmit={submit} aria-labelledby="attach-task-heading">
      <h3 id="attach-task-heading">Attach a run task</h3>
      <label for="attach-task">Run task</label>
      <select id="attach-task" required value={taskId} onChange={(event) => setTaskId((event.target as HTMLSelectElement).value)}>
        <option value="">Choose a run task</option>
        {props.tasks.map((task) => (
          <option key={task.id} value={task.id}>
            {task.attributes.name}
          </option>
        ))}
      </select>
      <CheckboxGroup legend="Stages" options={STAGES} chosen={stages} onChange={setStages} describedBy={stagesError ? 'attach-stages-error' : undefined}>
        <FieldErrors id="attach-stages-error" error={attach.error} field="stages" />
      </CheckboxGroup>
      <fieldset>
        <legend>Enforcement</legend>
        <label class="choice">
          <input type="radio" name="attach-level" checked={level === 'mandatory'} onChange={() => setLevel('mandatory')} />
          Mandatory: a failure stops the run until someone overrides it
        </label>
        <label class="choice">
          <input type="radio" name="attach-level" checked={level === 'advisory'} onChange={() => setLevel('advisory')} />
          Advisory: a failure is reported and the run goes on
        </label>
      </fieldset>
      <ActionOutcome action={attach} placed={['stages']} />
      <SubmitButton busy={attach.busy} incomplete={!taskId || stages.length === 0}>
        Attach
      </SubmitButton>
    </form>
  );
}
