import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton, TextField } from '../components/form-parts';
import { useSession } from '../session/session-context';
import type { RunTask } from '../workspaces/workspace-types';

/**
 * Registers a run task (`POST /organizations/:org/tasks`) or edits one (`PATCH /tasks/:id`): name, the
 * service's URL, an optional HMAC key (write-only: never shown again; left empty on edit, it is kept) and
 * description, enabled. The server sends the service a verification request first and refuses an URL that
 * does not answer 200; its refusal is shown at the field.
 */
export function RunTaskForm(props: { organization: string; task?: RunTask; onSaved: () => void }) {
  const { api } = useSession();
  const existing = props.task?.attributes;
  const [name, setName] = useState(existing?.name ?? '');
  const [url, setUrl] = useState(existing?.url ?? '');
  const [hmacKey, setHmacKey] = useState('');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [enabled, setEnabled] = useState(existing?.enabled ?? true);
  const save = useAction();
  const prefix = props.task ? `task-${props.task.id}` : 'new-task';

  async function submit(event: Event) {
    event.preventDefault();
    const attributes: Record<string, unknown> = { name: name.trim(), url: url.trim(), description: description.trim() || null, enabled, category: 'task' };
    if (hmacKey || !props.task) attributes['hmac-key'] = hmacKey || null;
    const done = await save.run(
      () =>
        props.task
          ? api.patch(`/tasks/${segment(props.task.id)}`, { data: { type: 'tasks', attributes } })
          : api.post(`/organizations/${segment(props.organization)}/tasks`, { data: { type: 'tasks', attributes } }),
      props.task ? 'Run task saved.' : 'Run task registered.',
    );
    if (done) {
      if (!props.task) {
        setName('');
        setUrl('');
        setDescription('');
      }
      setHmacKey('');
      props.onSaved();
    }
  }
  return (
    <form class="stacked" onSubmit={submit}>
      <TextField id={`${prefix}-name`} label="Name" required value={name} onValue={setName} error={save.error} field="name" />
      <TextField
        id={`${prefix}-url`}
        label="Service URL"
        type="url"
        required
        value={url}
        onValue={setUrl}
        error={save.error}
        field="url"
        hint="The service is sent a test request now and must answer 200."
      />
      <TextField
        id={`${prefix}-hmac`}
        label={props.task ? 'New HMAC key (optional; empty keeps the current one)' : 'HMAC key (optional)'}
        type="password"
        autocomplete="new-password"
        value={hmacKey}
        onValue={setHmacKey}
        error={save.error}
        field="hmac-key"
        errorId={`${prefix}-hmac-key-error`}
      />
      <TextField id={`${prefix}-description`} label="Description (optional)" maxLength={300} value={description} onValue={setDescription} error={save.error} field="description" />
      <label class="choice">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled((event.target as HTMLInputElement).checked)} />
        Enabled (runs call it)
      </label>
      <ActionOutcome action={save} placed={['name', 'url', 'description', 'hmac-key']} />
      <SubmitButton busy={save.busy} busyLabel="Checking the service…">
        {props.task ? 'Save run task' : 'Register run task'}
      </SubmitButton>
    </form>
  );
}
