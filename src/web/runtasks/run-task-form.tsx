import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ErrorNotice, FieldErrors } from '../components/page-states';
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
  const fieldError = (field: string) => (save.error?.forField(field).length ?? 0) > 0;
  const placed = ['name', 'url', 'description', 'hmac-key'].some(fieldError);
  const described = (field: string) => (fieldError(field) ? `${prefix}-${field}-error` : undefined);
  return (
    <form class="stacked" onSubmit={submit}>
      <label for={`${prefix}-name`}>Name</label>
      <input id={`${prefix}-name`} required value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} aria-invalid={fieldError('name') ? 'true' : undefined} aria-describedby={described('name')} />
      <FieldErrors id={`${prefix}-name-error`} error={save.error} field="name" />
      <label for={`${prefix}-url`}>Service URL</label>
      <input
        id={`${prefix}-url`}
        type="url"
        required
        value={url}
        onInput={(event) => setUrl((event.target as HTMLInputElement).value)}
        aria-invalid={fieldError('url') ? 'true' : undefined}
        aria-describedby={[`${prefix}-url-hint`, described('url')].filter(Boolean).join(' ')}
      />
      <p id={`${prefix}-url-hint`} class="muted">
        The service is sent a test request now and must answer 200.
      </p>
      <FieldErrors id={`${prefix}-url-error`} error={save.error} field="url" />
      <label for={`${prefix}-hmac`}>{props.task ? 'New HMAC key (optional; empty keeps the current one)' : 'HMAC key (optional)'}</label>
      <input id={`${prefix}-hmac`} type="password" autocomplete="new-password" value={hmacKey} onInput={(event) => setHmacKey((event.target as HTMLInputElement).value)} aria-describedby={described('hmac-key')} />
      <FieldErrors id={`${prefix}-hmac-key-error`} error={save.error} field="hmac-key" />
      <label for={`${prefix}-description`}>Description (optional)</label>
      <input id={`${prefix}-description`} maxLength={300} value={description} onInput={(event) => setDescription((event.target as HTMLInputElement).value)} aria-describedby={described('description')} />
      <FieldErrors id={`${prefix}-description-error`} error={save.error} field="description" />
      <label class="choice">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled((event.target as HTMLInputElement).checked)} />
        Enabled (runs call it)
      </label>
      {save.error && !placed && <ErrorNotice error={save.error} />}
      {save.message && (
        <p role="status" class="notice notice-ok">
          {save.message}
        </p>
      )}
      <button type="submit" disabled={save.busy}>
        {save.busy ? 'Checking the service…' : props.task ? 'Save run task' : 'Register run task'}
      </button>
    </form>
  );
}
