import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton, TextField } from '../components/form-parts';
import { FieldErrors } from '../components/page-states';
import { paths } from '../router/console-paths';
import { navigate } from '../router/history-router';
import { useSession } from '../session/session-context';
import type { Workspace, WorkspaceAttributes } from './workspace-types';

const MODES: { value: string; label: string }[] = [
  { value: 'remote', label: 'Remote: the server runs plan and apply itself (the built-in executor)' },
  { value: 'agent', label: 'Agent: your pipeline runs terraform and reports the plan, logs and apply (teamstage pipeline)' },
  { value: 'local', label: 'Local: terraform runs elsewhere; no runs here' },
];

/**
 * Creates a workspace (`POST /organizations/:org/workspaces`, then opens it) or edits one (`PATCH
 * /workspaces/:id`): name, description, execution mode and auto-apply. The server judges; its refusal is
 * shown at the field it names.
 */
export function WorkspaceForm(props: { organization: string; workspace?: Workspace; onSaved?: () => void }) {
  const { api } = useSession();
  const existing = props.workspace?.attributes;
  const [name, setName] = useState(existing?.name ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [mode, setMode] = useState(existing?.['execution-mode'] ?? 'remote');
  const [autoApply, setAutoApply] = useState(existing?.['auto-apply'] ?? false);
  const save = useAction();
  const idPrefix = props.workspace ? 'workspace' : 'new-workspace';

  async function submit(event: Event) {
    event.preventDefault();
    const attributes = { name: name.trim(), description: description.trim() || null, 'execution-mode': mode, 'auto-apply': autoApply };
    let created: Document<WorkspaceAttributes> | undefined;
    const done = await save.run(async () => {
      if (props.workspace) await api.patch(`/workspaces/${segment(props.workspace.id)}`, { data: { type: 'workspaces', attributes } });
      else created = await api.post<Document<WorkspaceAttributes>>(`/organizations/${segment(props.organization)}/workspaces`, { data: { type: 'workspaces', attributes } });
    }, props.workspace ? 'Workspace saved.' : undefined);
    if (!done) return;
    if (created) navigate(paths.workspace(props.organization, created.data.attributes.name));
    else if (props.workspace && attributes.name !== props.workspace.attributes.name) navigate(paths.workspace(props.organization, attributes.name), { replace: true });
    else props.onSaved?.();
  }
  return (
    <form class="stacked" onSubmit={submit}>
      <TextField id={`${idPrefix}-name`} label="Workspace name" required value={name} onValue={setName} error={save.error} field="name" />
      <TextField id={`${idPrefix}-description`} label="Description (optional)" value={description} onValue={setDescription} error={save.error} field="description" />
      <fieldset>
        <legend>Execution mode</legend>
        {MODES.map((option) => (
          <label class="choice" key={option.value}>
            <input type="radio" name={`${idPrefix}-mode`} checked={mode === option.value} onChange={() => setMode(option.value)} />
            {option.label}
          </label>
        ))}
        <FieldErrors id={`${idPrefix}-mode-error`} error={save.error} field="execution-mode" />
      </fieldset>
      <label class="choice">
        <input type="checkbox" checked={autoApply} onChange={(event) => setAutoApply((event.target as HTMLInputElement).checked)} />
        Apply automatically after a successful plan (no one confirms)
      </label>
      {/* auto-apply has no line of its own: its refusal goes in the notice. */}
      <ActionOutcome action={save} placed={['name', 'description', 'execution-mode']} />
      <SubmitButton busy={save.busy} busyLabel="Saving…">
        {props.workspace ? 'Save workspace' : 'Create workspace'}
      </SubmitButton>
    </form>
  );
}
